/**
 * Regression suite for the answers a fuzzer found wrong, over HTTP in both run modes. Each input
 * gets the right status (never a 5xx) and the TTS error shape, a refused one stores nothing (a
 * GET afterwards), and valid keys and sizes are stored and returned:
 * 1. map keys that are also Object.prototype names (`constructor`, `prototype`, `toString`,
 *    `valueOf`, `hasOwnProperty`, `__proto__`) in attributes, locations, webhook headers, Structs
 *    and event stream requests;
 * 2. bodies nesting deeper than MAX_JSON_DEPTH;
 * 3. webhook field_mask paths;
 * 4. the bounds of provisioning_data and factory_preset_frequencies (and the webhook and link
 *    sizes validation allows, which MySQL must hold).
 * The keep-alive of idle event streams (finding 5) is timed in the gateway's unit spec.
 */
import { APPLICATION_UP_PATHS, MAX_JSON_DEPTH } from '@lorawan/api';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { isDevicePath, isDevicesPath, NS_OTAA, NS_OTAA_PATHS, otaaIds, registryDevicePath, uid } from './devices';
import { EventStream } from './event-stream';
import {
  Api,
  type ApiResponse,
  createApplications,
  type ErrorDetailsJson,
  expectPlainStatus,
  expectStatus,
  expectTtsError,
  expectValidationError,
} from './http-client';

type Start = () => Promise<StackUnderTest>;

const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'js', 'ns', 'as', 'events'] })],
  ['embedded', () => startEmbeddedStack({})],
];

const PROTOTYPE_KEYS = ['constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'] as const;
/** The ones that match TTS's key pattern for attributes and locations (`^[a-z0-9](?:[-]?[a-z0-9]){2,}$`). */
const VALID_ATTRIBUTE_KEYS = ['constructor', 'prototype'] as const;
const INVALID_ATTRIBUTE_KEYS = ['toString', 'valueOf', 'hasOwnProperty', '__proto__'] as const;

/**
 * An object whose own keys are `keys`, each mapped by `value`: built with Object.fromEntries,
 * which defines `__proto__` as an own key (an object literal would set the prototype), so
 * JSON.stringify sends it.
 */
const withKeys = (keys: readonly string[], value: (key: string) => unknown) => Object.fromEntries(keys.map((k) => [k, value(k)]));

/** `{"a":{"a":…{}}}`, `levels` objects deep, as JSON text (no recursion to build or send it). */
const nestedJson = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

const webhookPath = (app: string, id: string) => `/api/v3/as/webhooks/${app}/${id}`;

/** The innermost cause's field of a validation error, and the chain's fields. */
function causeFields(details: ErrorDetailsJson): string[] {
  const fields: string[] = [];
  for (let d: ErrorDetailsJson | undefined = details; d; d = d.cause) fields.push(String(d.attributes?.field));
  return fields;
}

describe.each(MODES)('bad input over HTTP (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const app = uid('bad-app');

  beforeAll(async () => {
    stack = await start();
    await createApplications(api, [app]);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** A 400 refusal that stored nothing: `get` answers 404 afterwards. */
  async function expectNothingStored(get: string): Promise<void> {
    expectStatus(await api.get(get), 404);
  }

  describe('1. map keys that are also Object.prototype names', () => {
    it('IS device attributes: `constructor` and `prototype` are stored and returned', async () => {
      const device_id = uid('dev');
      const attributes = withKeys(VALID_ATTRIBUTE_KEYS, (k) => `value of ${k}`);
      const created = await api.post(isDevicesPath(app), { end_device: { ids: { device_id }, attributes } });
      expectStatus(created, 200);
      expect(created.json.attributes).toEqual(attributes);
      const got = await api.get(`${isDevicePath(app, device_id)}?field_mask=attributes`);
      expectStatus(got, 200);
      expect(Object.entries(got.json.attributes)).toEqual(Object.entries(attributes));
      // And on update.
      const updated = await api.put(isDevicePath(app, device_id), {
        end_device: { attributes: { prototype: 'new', constructor: 'new' } },
        field_mask: { paths: ['attributes'] },
      });
      expectStatus(updated, 200);
      expect((await api.get(`${isDevicePath(app, device_id)}?field_mask=attributes`)).json.attributes).toEqual({ prototype: 'new', constructor: 'new' });
    });

    it.each(INVALID_ATTRIBUTE_KEYS)('IS device attribute key %s: 400 naming attributes[key], nothing stored', async (key) => {
      const device_id = uid('dev');
      const res = await api.post(isDevicesPath(app), { end_device: { ids: { device_id }, attributes: withKeys([key, 'valid-key'], () => 'v') } });
      const leaf = expectValidationError(res, `attributes[${key}]`);
      expect(leaf.attributes?.reason).toMatch(/regex pattern/);
      expect(causeFields(res.json.details[0])).toEqual(['end_device', `attributes[${key}]`]);
      await expectNothingStored(isDevicePath(app, device_id));
    });

    it('IS device locations: `constructor` and `prototype` keys hold Locations; a bad location names its entry', async () => {
      const device_id = uid('dev');
      const locations = withKeys(VALID_ATTRIBUTE_KEYS, () => ({ latitude: 52.1, longitude: 4.3, source: 'SOURCE_REGISTRY' }));
      expectStatus(await api.post(isDevicesPath(app), { end_device: { ids: { device_id }, locations } }), 200);
      expect((await api.get(`${isDevicePath(app, device_id)}?field_mask=locations`)).json.locations).toEqual(locations);
      const bad = uid('dev');
      const res = await api.post(isDevicesPath(app), { end_device: { ids: { device_id: bad }, locations: { constructor: { latitude: 91, longitude: 4.3 } } } });
      expectValidationError(res, 'latitude');
      expect(causeFields(res.json.details[0])).toEqual(['end_device', 'locations[constructor]', 'latitude']);
      await expectNothingStored(isDevicePath(app, bad));
    });

    it('webhook headers: every one of the six names is stored and returned (they are HTTP tokens)', async () => {
      const headers = withKeys(PROTOTYPE_KEYS, (k) => `value of ${k}`);
      const put = await api.put(webhookPath(app, 'wh-names'), {
        webhook: { base_url: 'https://example.com/hook', headers },
        field_mask: { paths: ['base_url', 'headers'] },
      });
      expectStatus(put, 200);
      const got = await api.get(`${webhookPath(app, 'wh-names')}?field_mask=headers`);
      expectStatus(got, 200);
      expect(Object.entries(got.json.headers)).toEqual(Object.entries(headers));
    });

    it('JS provisioning_data (a Struct): the six keys at every level are stored and returned', async () => {
      const ids = otaaIds(uid('dev'));
      const provisioning_data = withKeys(PROTOTYPE_KEYS, (k) => withKeys([k], () => [withKeys([k], () => 1)]));
      const set = await api.put(registryDevicePath('js', app, ids.device_id), {
        end_device: { ids, provisioning_data },
        field_mask: { paths: ['provisioning_data'] },
      });
      expectStatus(set, 200);
      const got = await api.get(`${registryDevicePath('js', app, ids.device_id)}?field_mask=provisioning_data`);
      expectStatus(got, 200);
      expect(JSON.stringify(got.json.provisioning_data)).toBe(JSON.stringify(provisioning_data));
    });

    it('unknown fields holding the six keys are ignored; a field of the wrong type holding them is a 400', async () => {
      const device_id = uid('dev');
      const junk = withKeys(PROTOTYPE_KEYS, (k) => withKeys([k], () => '1'));
      const res = await api.post(isDevicesPath(app), { end_device: { ids: { device_id }, unknown_field: junk, ...junk }, ...junk });
      expectStatus(res, 200);
      expect(res.json.ids.device_id).toBe(device_id);
      const wrongType = uid('dev');
      expectValidationError(await api.post(isDevicesPath(app), { end_device: { ids: { device_id: wrongType }, name: junk } }), 'name');
      await expectNothingStored(isDevicePath(app, wrongType));
    });

    it('event streams: the six keys in an unknown field or an identifier start the stream; in `names` they are a 400', async () => {
      const authorization = `Bearer ${stack.adminKey}`;
      const junk = withKeys(PROTOTYPE_KEYS, (k) => withKeys([k], () => '1'));
      const ok = await EventStream.open(stack.baseUrl, {
        authorization,
        body: { identifiers: [{ application_ids: { application_id: app }, ...junk }], ...junk },
      });
      try {
        expect(ok.status).toBe(200);
        expect((await ok.nextEvent()).name).toBe('events.stream.start');
      } finally {
        ok.close();
      }
      const bad = await EventStream.open(stack.baseUrl, { authorization, body: { identifiers: [{ application_ids: { application_id: app } }], names: junk } });
      expect(bad.status).toBe(400);
      const error = bad.json?.error;
      expect([error?.code, error?.details?.[0]?.namespace, error?.details?.[0]?.name, error?.details?.[0]?.attributes?.field]).toEqual([
        3,
        'pkg/errors',
        'validation',
        'names',
      ]);
    });
  });

  describe(`2. nesting deeper than MAX_JSON_DEPTH (${MAX_JSON_DEPTH})`, () => {
    it('10 000 nested objects in an unknown field of a device create: 400 {code:3,message}, nothing stored', async () => {
      const device_id = uid('dev');
      const res = await api.post(isDevicesPath(app), `{"end_device":{"ids":{"device_id":"${device_id}"},"x":${nestedJson(10_000)}}}`);
      expectPlainStatus(res, 400, 3);
      expect(res.json.message).toMatch(`nests deeper than ${MAX_JSON_DEPTH} levels`);
      await expectNothingStored(isDevicePath(app, device_id));
    });

    it('2 500 levels in end_device.formatters of an AS Set: 400, nothing stored', async () => {
      const ids = otaaIds(uid('dev'));
      const body = `{"end_device":{"ids":${JSON.stringify(ids)},"formatters":{"up_formatter":"FORMATTER_CAYENNELPP","x":${nestedJson(2_500)}}},"field_mask":{"paths":["formatters"]}}`;
      expectPlainStatus(await api.put(registryDevicePath('as', app, ids.device_id), body), 400, 3);
      await expectNothingStored(registryDevicePath('as', app, ids.device_id));
    });

    it(`a Struct may fill the request up to ${MAX_JSON_DEPTH} levels, not one more`, async () => {
      const ids = otaaIds(uid('dev'));
      // The request (1), end_device (2), provisioning_data (3): the Struct's own levels are the rest.
      const body = (levels: number) =>
        `{"end_device":{"ids":${JSON.stringify(ids)},"provisioning_data":${nestedJson(levels - 2)}},"field_mask":{"paths":["provisioning_data"]}}`;
      expectPlainStatus(await api.put(registryDevicePath('js', app, ids.device_id), body(MAX_JSON_DEPTH + 1)), 400, 3);
      await expectNothingStored(registryDevicePath('js', app, ids.device_id));
      expectStatus(await api.put(registryDevicePath('js', app, ids.device_id), body(MAX_JSON_DEPTH)), 200);
      const got = await api.get(`${registryDevicePath('js', app, ids.device_id)}?field_mask=provisioning_data`);
      expect(JSON.stringify(got.json.provisioning_data)).toBe(nestedJson(MAX_JSON_DEPTH - 2));
    });

    it('an event stream request nesting too deep is refused before it starts', async () => {
      const stream = await EventStream.open(stack.baseUrl, {
        authorization: `Bearer ${stack.adminKey}`,
        body: `{"identifiers":[{"application_ids":{"application_id":"${app}"}}],"x":${nestedJson(10_000)}}`,
      });
      expect(stream.status).toBe(400);
      expect(stream.json).toEqual({ code: 3, message: expect.stringContaining('nests deeper') });
    });
  });

  describe('3. webhook field_mask paths', () => {
    const set = (id: string, paths: unknown) =>
      api.put(webhookPath(app, id), {
        webhook: { base_url: 'https://example.com/hook', field_mask: { paths } },
        field_mask: { paths: ['base_url', 'field_mask'] },
      });

    it('stores ApplicationUp paths, with or without the `up.` prefix of the oneof', async () => {
      const paths = ['end_device_ids', 'up.uplink_message.decoded_payload', 'join_accept', 'up'];
      expectStatus(await set('wh-mask', paths), 200);
      expect((await api.get(`${webhookPath(app, 'wh-mask')}?field_mask=field_mask`)).json.field_mask).toEqual({ paths });
    });

    it.each([
      ['an unknown path', ['end_device_ids', 'up.uplink_message.nope'], /path "up\.uplink_message\.nope" is not a field path of ApplicationUp/],
      ['a 70 000-character path', ['x'.repeat(70_000)], /is not a field path of ApplicationUp/],
      ['20 000 paths', Array.from({ length: 20_000 }, (_, i) => `path${i}`), /no more than 233 path/],
      ['234 valid paths', Array(234).fill('end_device_ids'), /no more than 233 path/],
    ])('refuses %s with a validation error on field_mask, storing nothing', async (_name, paths, reason) => {
      const id = uid('wh');
      const res = await set(id, paths);
      const leaf = expectValidationError(res, 'field_mask');
      expect(String(leaf.attributes?.reason)).toMatch(reason);
      expect(causeFields(res.json.details[0])).toEqual(['webhook', 'field_mask']);
      expect(res.text.length).toBeLessThan(5_000);
      await expectNothingStored(webhookPath(app, id));
    });

    it('stores the largest webhook validation allows: 50 headers of 4096 characters and 233 paths', async () => {
      const headers = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`x-header-${i}`, 'v'.repeat(4096)]));
      const paths = [...APPLICATION_UP_PATHS];
      const res = await api.put(webhookPath(app, 'wh-largest'), {
        webhook: { base_url: 'https://example.com/hook', headers, field_mask: { paths } },
        field_mask: { paths: ['base_url', 'headers', 'field_mask'] },
      });
      expectStatus(res, 200);
      const got = await api.get(`${webhookPath(app, 'wh-largest')}?field_mask=headers,field_mask`);
      expect([got.json.headers, got.json.field_mask]).toEqual([headers, { paths }]);
    });
  });

  describe('4. bounds of provisioning_data and factory_preset_frequencies', () => {
    it('JS provisioning_data of 900 KB: 400 naming provisioning_data, nothing stored; 60 KB is stored', async () => {
      const ids = otaaIds(uid('dev'));
      const set = (size: number) =>
        api.put(registryDevicePath('js', app, ids.device_id), {
          end_device: { ids, provisioning_data: { blob: 'x'.repeat(size) } },
          field_mask: { paths: ['provisioning_data'] },
        });
      const leaf = expectValidationError(await set(900_000), 'provisioning_data');
      expect(leaf.attributes?.reason).toMatch(/at most 65536 bytes/);
      await expectNothingStored(registryDevicePath('js', app, ids.device_id));
      expectStatus(await set(60_000), 200);
    });

    it('NS factory_preset_frequencies of 50 000 items: 400, nothing stored; 96 (TTS) are stored', async () => {
      const ids = otaaIds(uid('dev'));
      const set = (count: number) =>
        api.put(registryDevicePath('ns', app, ids.device_id), {
          end_device: { ids, ...NS_OTAA, mac_settings: { factory_preset_frequencies: Array(count).fill('868100000') } },
          field_mask: { paths: [...NS_OTAA_PATHS, 'mac_settings.factory_preset_frequencies'] },
        });
      const leaf = expectValidationError(await set(50_000), 'factory_preset_frequencies');
      expect(leaf.attributes?.reason).toMatch(/no more than 96 item/);
      await expectNothingStored(registryDevicePath('ns', app, ids.device_id));
      expectValidationError(await set(97), 'factory_preset_frequencies');
      expectStatus(await set(96), 200);
      const got = await api.get(`${registryDevicePath('ns', app, ids.device_id)}?field_mask=mac_settings.factory_preset_frequencies`);
      expect(got.json.mac_settings.factory_preset_frequencies).toHaveLength(96);
    });

    it('an application link with two 40 960-byte formatter scripts is stored', async () => {
      const script = (name: string) => `function ${name}(input) { return {}; } //`.padEnd(40_960, 'x');
      const default_formatters = {
        up_formatter: 'FORMATTER_JAVASCRIPT',
        up_formatter_parameter: script('decodeUplink'),
        down_formatter: 'FORMATTER_JAVASCRIPT',
        down_formatter_parameter: script('encodeDownlink'),
      };
      const res: ApiResponse = await api.put(`/api/v3/as/applications/${app}/link`, {
        link: { default_formatters },
        field_mask: { paths: ['default_formatters'] },
      });
      expectStatus(res, 200);
      expect((await api.get(`/api/v3/as/applications/${app}/link?field_mask=default_formatters`)).json.default_formatters).toEqual(default_formatters);
    });
  });

  it('answered no request with a 5xx', () => {
    if (api.serverErrors.length > 0) console.error(`${mode} stack logs:\n${stack.logs()}`);
    expect(api.serverErrors).toEqual([]);
  });

  it('the error of a refused Set has the TTS shape (spot check)', async () => {
    const details = expectTtsError(
      await api.post(isDevicesPath(app), { end_device: { ids: { device_id: uid('dev') }, attributes: { toString: 'x' } } }),
      400,
      3,
      'pkg/errors',
      'validation',
      {
        field: 'end_device',
      },
    );
    expect(details.message_format).toBe('invalid `{field}`: {reason}');
  });
});
