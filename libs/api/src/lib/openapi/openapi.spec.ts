import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KEY_PATHS } from '../field-mask/allowed-paths';
import { RPCS } from '../rpc/rpc-table';
import type { RpcDefinition } from '../rpc/define-rpc';
import { buildOpenApiDocument, operationIdOf } from './openapi';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Lints a document with @redocly/openapi-core's recommended rules. The package is ESM only, which
 * Jest's CommonJS runtime cannot load: a short Node process runs it (about a second).
 */
async function redoclyLint(document: object): Promise<Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const script = `
      import { createConfig, lint } from '@redocly/openapi-core';
      const config = await createConfig({ extends: ['recommended'] });
      const problems = await lint({ ref: process.argv[1], config });
      process.stdout.write(JSON.stringify(problems.map(({ ruleId, severity, message, location }) => ({ ruleId, severity, message, location: location.map((l) => ({ pointer: l.pointer })) }))));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, file], { cwd: process.cwd(), maxBuffer: 64 << 20 });
    return JSON.parse(stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument() as Json;
  const rpcs = Object.values(RPCS) as RpcDefinition[];
  const schemas = doc.components.schemas as Record<string, Json>;

  it('has every HTTP binding of the RPC table as an operation, with its verb and path', () => {
    const operations = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.entries(item).map(([verb, op]) => ({ path, verb, op: op as Json })),
    );
    const byId = new Map(operations.map((o) => [o.op.operationId as string, o]));
    const shape = (path: string) => path.replace(/\{[a-z0-9_.]+\}/g, '{}');
    let bindings = 0;
    for (const rpc of rpcs) {
      rpc.http.forEach((binding, index) => {
        bindings++;
        const found = byId.get(operationIdOf(rpc, index));
        expect({ rpc: rpc.name, verb: found?.verb, path: found && shape(found.path), x_rpc: found?.op['x-rpc'] }).toEqual({
          rpc: rpc.name,
          verb: binding.verb.toLowerCase(),
          path: shape(binding.path),
          x_rpc: rpc.name,
        });
        // Each path variable is a parameter naming the request field it fills.
        const variables = [...binding.path.matchAll(/\{([a-z0-9_.]+)\}/g)].map((m) => m[1]);
        const pathParameters = (found?.op.parameters ?? []).filter((p: Json) => p.in === 'path');
        expect(pathParameters.map((p: Json) => p['x-field-path'])).toEqual(variables);
        expect(pathParameters.map((p: Json) => `{${p.name}}`)).toEqual(found?.path.match(/\{[a-z0-9_]+\}/g) ?? []);
      });
    }
    expect(operations).toHaveLength(bindings);
    expect(byId.size).toBe(bindings);
    expect(doc.servers).toEqual([{ url: '/api/v3' }]);
  });

  it('gives every operation a response schema, its rights and the error shape', () => {
    for (const rpc of rpcs.filter((r) => r.http.length > 0)) {
      expect({ rpc: rpc.name, response: rpc.response !== undefined }).toEqual({ rpc: rpc.name, response: true });
    }
    const get = doc.paths['/applications/{application_id}/devices/{device_id}'].get;
    expect(get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/EndDevice' });
    expect(get['x-rights']).toEqual({
      entity: { kind: 'application', path: 'end_device_ids.application_ids.application_id' },
      rights: ['RIGHT_APPLICATION_DEVICES_READ'],
      mask_rights: [{ paths: [...KEY_PATHS.read], rights: ['RIGHT_APPLICATION_DEVICES_READ_KEYS'] }],
    });
    expect(get.description).toMatch(
      /A field mask covering `root_keys\.app_key\.key`, .* and \d+ more \(all in `x-rights\.mask_rights`\) also needs `RIGHT_APPLICATION_DEVICES_READ_KEYS`/,
    );
    expect(get.description).toContain('`RIGHT_APPLICATION_DEVICES_READ`');
    expect(get.parameters.find((p: Json) => p.name === 'field_mask')).toMatchObject({ in: 'query', schema: { type: 'string' } });
    expect(get.responses['404']).toEqual({ $ref: '#/components/responses/Error404' });
    expect(doc.components.responses.Error404.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Status' });
    expect(schemas.ErrorDetails.properties['@type']).toEqual({ type: 'string', const: 'type.googleapis.com/ttn.lorawan.v3.ErrorDetails' });

    const list = doc.paths['/applications/{application_id}/devices'].get;
    expect(list.responses['200'].headers['X-Total-Count']).toBeDefined();
    expect(list.parameters.map((p: Json) => p.name)).toEqual(expect.arrayContaining(['field_mask', 'order', 'limit', 'page']));
    expect(doc.paths['/users'].post['x-rights']).toMatchObject({ admin_only: true });
    expect(doc.paths['/users'].post.description).toContain('Admin users only.');
    expect(doc.paths['/applications/{application_id}/devices/batch'].get.parameters).toContainEqual(
      expect.objectContaining({ name: 'device_ids', in: 'query', schema: expect.objectContaining({ type: 'array' }) }),
    );

    const stream = doc.paths['/events'].post.responses['200'].content['application/json'].schema;
    expect(stream.oneOf[0].properties.result).toEqual({ $ref: '#/components/schemas/Event' });
    expect(stream.oneOf[1].properties.error).toEqual({ $ref: '#/components/schemas/Status' });
    const webhookPush = doc.paths['/as/applications/{application_id}/webhooks/{webhook_id}/devices/{device_id}/down/push'].post;
    expect(webhookPush.responses['200'].content).toBeUndefined();
    expect(webhookPush.responses['406']).toBeDefined();
  });

  it('marks the public operation (the frequency plans) as needing no credential and answering no 401 or 403', () => {
    const plans = doc.paths['/configuration/frequency-plans'].get;
    expect(plans.security).toEqual([]);
    expect(plans['x-rights']).toEqual({ rights: [], public: true });
    expect(plans.description).toContain('Open to anyone');
    expect(plans.responses['401']).toBeUndefined();
    expect(plans.responses['403']).toBeUndefined();
    expect(plans.parameters.map((p: Json) => p.name).sort()).toEqual(['band_id', 'base_frequency']);
    expect(plans.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ListFrequencyPlansResponse' });
    expect(doc.paths['/applications'].get.security).toBeUndefined();
    expect(doc.paths['/applications'].get.responses['401']).toBeDefined();
  });

  it('describes the fields with their rules: patterns, lengths, enums by name, references, item limits', () => {
    const ids = schemas.EndDeviceIdentifiers;
    expect(ids.properties.dev_eui).toMatchObject({ type: 'string', pattern: '^[0-9A-Fa-f]{16}$' });
    expect(ids.properties.device_id).toMatchObject({ type: 'string', maxLength: 36, pattern: expect.any(String) });
    expect(new RegExp(ids.properties.device_id.pattern).test('dev-1')).toBe(true);
    expect(ids.required).toEqual(expect.arrayContaining(['device_id', 'application_ids']));
    expect(ids.properties.application_ids).toEqual({ $ref: '#/components/schemas/ApplicationIdentifiers' });
    expect(schemas.EndDevice.properties.lorawan_version).toMatchObject({ type: 'string', enum: expect.arrayContaining(['MAC_V1_0_3', 'MAC_V1_1']) });
    expect(schemas.EndDevice.properties.name).toMatchObject({ type: 'string', maxLength: 50 });
    const batchGet = doc.paths['/applications/{application_id}/devices/batch'].get;
    expect(batchGet.parameters.find((p: Json) => p.name === 'device_ids').schema).toMatchObject({ type: 'array', minItems: 1, maxItems: 20 });
    expect(schemas.BatchCreateEndDevicesRequest.properties.end_devices).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/EndDevice' } });
    expect(schemas.Rights.properties.rights.items.enum).toContain('RIGHT_APPLICATION_DEVICES_READ');
    const limit = doc.paths['/applications/{application_id}/devices'].get.parameters.find((p: Json) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', maximum: 1000 });
  });

  it('lints without errors under @redocly/cli recommended rules', async () => {
    const problems = await redoclyLint(doc);
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
  }, 60_000);
});
