import type { ClassConstructor } from 'class-transformer';
import { Code, ERROR_DETAILS_TYPE, httpStatusFromCode } from '@lorawan/errors';
import { type FieldRule, fieldsOf, hasRule, nestedClass } from '../json/field-rules';
import type { HttpBinding, RpcDefinition } from '../rpc/define-rpc';
import { RPCS } from '../rpc/rpc-table';
import { FIELD_MASK_SCHEMA, type JsonSchema, SchemaRegistry } from './schemas';

/** The OpenAPI 3.1 document (plain JSON). */
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, OpenApiOperation>> };

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  tags: string[];
  'x-rpc': string;
  [key: string]: unknown;
}

/** The API's base path: the document's server, the prefix of every path of the RPC table. */
export const API_BASE_PATH = '/api/v3';

const VARIABLE = /\{([a-z0-9_.]+)\}/g;

/**
 * The OpenAPI paths of the table's bindings. A variable `{a.b.c}` is named by its last part (`{c}`);
 * bindings of one path template share the names of the first (OpenAPI has one template per path:
 * `PUT …/api-keys/{api_key.id}` is `…/api-keys/{key_id}` as `GET` names it).
 */
class PathTemplates {
  private readonly names = new Map<string, string[]>();

  of(path: string): { path: string; names: string[] } {
    const shape = path.replace(VARIABLE, '{}');
    let names = this.names.get(shape);
    if (!names) {
      names = [...path.matchAll(VARIABLE)].map((m) => m[1].split('.').pop() as string);
      if (new Set(names).size !== names.length) throw new Error(`${path}: two path variables end in the same name`);
      this.names.set(shape, names);
    }
    let i = 0;
    const fixed = names;
    return { path: shape.replace(/\{\}/g, () => `{${fixed[i++]}}`), names };
  }
}

/** The `operationId` of an RPC's `index`-th HTTP binding: `Service_Method`, then `Service_Method2`, … (as grpc-gateway's generator). */
export function operationIdOf(rpc: Pick<RpcDefinition, 'service' | 'method'>, index: number): string {
  return `${rpc.service}_${rpc.method}${index === 0 ? '' : index + 1}`;
}

/** The statuses every authenticated operation may answer with the error shape. */
const COMMON_ERRORS = [400, 401, 403, 404, 429, 500, 503];
/** Further ones: conflicts where something is written, a body over the limit where there is one. */
const WRITE_ERRORS = [409];
const BODY_ERRORS = [413];

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthenticated',
  403: 'Permission denied',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body too large',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Unavailable',
};

/** The canonical codes the one code → HTTP table maps to `status`. */
function codesOf(status: number): string {
  const codes = Object.entries(Code).filter(([, v]) => typeof v === 'number' && httpStatusFromCode(v as Code) === status);
  return codes.map(([name, v]) => `${name} (${v})`).join(', ');
}

/** `google.rpc.Status` as the gateway writes it, with TTS's `ErrorDetails`. */
function errorSchemas(): Record<string, JsonSchema> {
  return {
    ErrorDetails: {
      type: 'object',
      description: "TTS's `ttn.lorawan.v3.ErrorDetails`: the error's definition (`namespace:name`), its attributes and the request's correlation ID.",
      required: ['@type', 'namespace', 'name', 'message_format', 'correlation_id', 'code'],
      properties: {
        '@type': { type: 'string', const: ERROR_DETAILS_TYPE },
        namespace: { type: 'string', examples: ['pkg/identityserver/store'] },
        name: { type: 'string', examples: ['end_device_not_found'] },
        message_format: { type: 'string', examples: ['end device `{device_id}` not found'] },
        attributes: { type: 'object', additionalProperties: true },
        correlation_id: { type: 'string' },
        cause: { $ref: '#/components/schemas/ErrorCause' },
        code: { type: 'integer', description: 'The canonical (gRPC) code.' },
        details: { type: 'array', items: { type: 'object', required: ['@type'], properties: { '@type': { type: 'string' } }, additionalProperties: true } },
      },
    },
    ErrorCause: {
      type: 'object',
      description: 'The error that caused this one: the fields of `ErrorDetails` without `@type`.',
      properties: {
        namespace: { type: 'string' },
        name: { type: 'string' },
        message_format: { type: 'string' },
        attributes: { type: 'object', additionalProperties: true },
        correlation_id: { type: 'string' },
        cause: { $ref: '#/components/schemas/ErrorCause' },
        code: { type: 'integer' },
      },
    },
    Status: {
      type: 'object',
      description:
        'An error (`google.rpc.Status`, as TTS writes it): the canonical code, the message, and `ErrorDetails` (absent for errors of the HTTP layer itself: a malformed body, an unknown route).',
      required: ['code', 'message'],
      properties: {
        code: { type: 'integer', description: 'The canonical (gRPC) code; the HTTP status is derived from it.' },
        message: { type: 'string', examples: ['error:pkg/identityserver/store:end_device_not_found (end device `dev1` not found)'] },
        details: { type: 'array', items: { $ref: '#/components/schemas/ErrorDetails' } },
      },
    },
  };
}

function describeRights(rpc: RpcDefinition): string {
  const lines: string[] = [];
  const list = (rights: readonly string[]) => rights.map((r) => `\`${r}\``).join(', ');
  if (rpc.adminOnly) lines.push('Admin users only.');
  if (rpc.entity) {
    const on = `the ${rpc.entity.kind} of \`${rpc.entity.path}\``;
    lines.push(
      rpc.rights.length > 0
        ? `Rights: ${list(rpc.rights)} on ${on}${rpc.entity.optional ? ' (when the request names one)' : ''}.`
        : `Rights: any right on ${on}.`,
    );
  } else if (rpc.rights.length > 0) lines.push(`Rights: ${list(rpc.rights)}.`);
  else if (rpc.public) lines.push('Open to anyone: no credential needed.');
  else if (!rpc.adminOnly) lines.push('Rights: an authenticated caller; the handler checks the rest.');
  if (rpc.orEntity) lines.push(`When the request names an ${rpc.orEntity.kind} (\`${rpc.orEntity.path}\`): ${list(rpc.orEntity.rights)} on it instead.`);
  if (rpc.orEntityByHandler) {
    const { kind, path, rights } = rpc.orEntityByHandler;
    lines.push(`When the request names an ${kind} (\`${path}\`): ${list(rights)} on it is enough too.`);
  }
  for (const rule of rpc.maskRights ?? []) {
    const shown = rule.paths.slice(0, MASK_PATHS_SHOWN).map((p) => `\`${p}\``);
    const more = rule.paths.length > MASK_PATHS_SHOWN ? ` and ${rule.paths.length - MASK_PATHS_SHOWN} more (all in \`x-rights.mask_rights\`)` : '';
    lines.push(`A field mask covering ${shown.join(', ')}${more} also needs ${list(rule.rights)}.`);
  }
  return lines.join('\n\n');
}

/** How many of a mask rule's paths the description names (the key rules cover every key of the device). */
const MASK_PATHS_SHOWN = 6;

/** `x-rights`: the same, as data. */
function rightsExtension(rpc: RpcDefinition): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries({
      entity: rpc.entity,
      rights: rpc.rights,
      or_entity: rpc.orEntity,
      or_entity_by_handler: rpc.orEntityByHandler,
      admin_only: rpc.adminOnly === true ? true : undefined,
      public: rpc.public === true ? true : undefined,
      mask_rights: rpc.maskRights?.map((m) => ({ paths: [...m.paths], rights: m.rights })),
    }).filter(([, v]) => v !== undefined),
  );
}

/** The rules of the field at a dotted path of `cls`, with the class that declares it. */
function fieldAt(cls: ClassConstructor<object>, path: string): { owner: ClassConstructor<object>; property: string; rules: FieldRule[] } | undefined {
  const parts = path.split('.');
  let owner = cls;
  for (const [i, property] of parts.entries()) {
    const rules = fieldsOf(owner).get(property);
    if (!rules) return undefined;
    if (i === parts.length - 1) return { owner, property, rules };
    const next = nestedClass(owner, property);
    if (!next) return undefined;
    owner = next;
  }
  return undefined;
}

/** Maximum depth of dotted query parameters (`collaborator.organization_ids.organization_id`). */
const QUERY_DEPTH = 3;

/**
 * Builds the API's OpenAPI 3.1 document from the RPC table: one operation per HTTP binding (its
 * request and response schemas from the contract's classes, its rights, its errors). Pure: the
 * gateway builds it once at start.
 */
export function buildOpenApiDocument(rpcs: readonly RpcDefinition[] = Object.values(RPCS) as RpcDefinition[]): OpenApiDocument {
  const registry = new SchemaRegistry();
  const errorStatuses = new Set<number>();
  const paths: Record<string, Record<string, OpenApiOperation>> = {};
  const services = new Map<string, RpcDefinition['component']>();

  const errorResponse = (status: number) => {
    errorStatuses.add(status);
    return { $ref: `#/components/responses/Error${status}` };
  };

  const parameterSchema = (cls: ClassConstructor<object>, path: string): JsonSchema => {
    const field = fieldAt(cls, path);
    return field ? registry.propertySchema(field.owner, field.property, field.rules) : { type: 'string' };
  };

  /** Query parameters of a route without a body: the request's fields not in the path, by dotted name. */
  const queryParameters = (cls: ClassConstructor<object>, pathFields: ReadonlySet<string>, prefix = '', depth = 1): unknown[] => {
    const out: unknown[] = [];
    for (const [property, rules] of fieldsOf(cls)) {
      const name = `${prefix}${property}`;
      if (pathFields.has(name)) continue;
      if (hasRule(rules, 'field_mask')) {
        out.push({
          name,
          in: 'query',
          description: 'The fields to answer with (or act on), comma-separated: `field_mask=name,ids.dev_eui`.',
          schema: { type: 'string' },
        });
        continue;
      }
      const nested = nestedClass(cls, property);
      if (nested && hasRule(rules, 'message')) {
        if (depth < QUERY_DEPTH) out.push(...queryParameters(nested, pathFields, `${name}.`, depth + 1));
        continue;
      }
      const schema = registry.propertySchema(cls, property, rules);
      // Maps of strings as grpc-gateway takes them, one parameter per entry: `attributes_contain[room]=kitchen`.
      if (hasRule(rules, 'string_map')) {
        out.push({ name, in: 'query', style: 'deepObject', explode: true, schema });
        continue;
      }
      // Lists are taken from repeated parameters only for `…_ids` fields (grpc-gateway: `device_ids=a&device_ids=b`); other maps and Structs not at all.
      if (schema.type === 'object' || (schema.type === 'array' && !property.endsWith('_ids'))) continue;
      out.push({ name, in: 'query', schema, ...(schema.type === 'array' ? { style: 'form', explode: true } : {}) });
    }
    return out;
  };

  const operation = (rpc: RpcDefinition, binding: HttpBinding, index: number, names: string[]): OpenApiOperation => {
    if (!rpc.response) throw new Error(`${rpc.name}: an RPC bound to HTTP needs a response class`);
    services.set(rpc.service, rpc.component);
    const variables = [...binding.path.matchAll(VARIABLE)].map((m) => m[1]);
    const parameters: unknown[] = variables.map((field, i) => ({
      name: names[i],
      in: 'path',
      required: true,
      description: `The request's \`${field}\`.`,
      'x-field-path': field,
      schema: parameterSchema(rpc.request, field),
    }));
    if (binding.body !== '*') parameters.push(...queryParameters(rpc.request, new Set(variables)));
    const responses: Record<string, unknown> = {};
    if (rpc.stream || rpc.streamOf) {
      const message = {
        oneOf: [
          { type: 'object', required: ['result'], properties: { result: registry.ref(rpc.response) }, additionalProperties: false },
          { type: 'object', required: ['error'], properties: { error: { $ref: '#/components/schemas/Status' } }, additionalProperties: false },
        ],
      };
      responses['200'] = {
        description: rpc.streamOf
          ? 'A stream of messages, each `{"result": …}`: JSON objects one per line (`application/json`), or separated by a blank line with `Accept: text/event-stream`.'
          : 'A long-lived stream of messages, each `{"result": …}` or, last, `{"error": …}`: JSON objects one per line (`application/json`), or separated by a blank line with `Accept: text/event-stream`.',
        content: { 'application/json': { schema: message }, 'text/event-stream': { schema: message } },
      };
    } else if (rpc.emptyResponse) {
      responses['200'] = { description: 'Done: an empty body.' };
    } else {
      responses['200'] = {
        description: `\`${rpc.response.name}\``,
        ...(rpc.paginated
          ? { headers: { 'X-Total-Count': { description: 'The number of items of all pages.', schema: { type: 'integer', minimum: 0 } } } }
          : {}),
        content: { 'application/json': { schema: registry.ref(rpc.response) } },
      };
    }
    for (const [name, status] of Object.entries(rpc.httpStatusFor ?? {})) {
      responses[String(status)] = { description: `\`${name}\`: an empty body.` };
    }
    const common = rpc.public ? COMMON_ERRORS.filter((s) => s !== 401 && s !== 403) : COMMON_ERRORS;
    const statuses = [...common, ...(binding.verb === 'GET' ? [] : WRITE_ERRORS), ...(binding.body === '*' ? BODY_ERRORS : [])].sort((a, b) => a - b);
    for (const status of statuses) responses[String(status)] ??= errorResponse(status);
    const description = [
      `RPC \`${rpc.name}\`, served by the ${rpc.component.toUpperCase()}.`,
      describeRights(rpc),
      variables.length > 0 ? 'Path variables fill the request fields they name (`x-field-path`), over the same fields of the body.' : '',
    ]
      .filter(Boolean)
      .join('\n\n');
    return {
      operationId: operationIdOf(rpc, index),
      summary: rpc.name,
      description,
      tags: [rpc.service],
      'x-rpc': rpc.name,
      'x-rights': rightsExtension(rpc),
      ...(rpc.public ? { security: [] } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(binding.body === '*' ? { requestBody: { required: false, content: { 'application/json': { schema: registry.ref(rpc.request) } } } } : {}),
      responses,
    };
  };

  const templates = new PathTemplates();
  for (const rpc of rpcs) {
    rpc.http.forEach((binding, index) => {
      const { path, names } = templates.of(binding.path);
      const verb = binding.verb.toLowerCase();
      const item = (paths[path] ??= {});
      if (item[verb]) throw new Error(`${binding.verb} ${path}: bound by ${item[verb]['x-rpc']} and ${rpc.name}`);
      item[verb] = operation(rpc, binding, index, names);
    });
  }

  const responses = Object.fromEntries(
    [...errorStatuses]
      .sort((a, b) => a - b)
      .map((status) => [
        `Error${status}`,
        {
          description: `${STATUS_TEXT[status] ?? 'Error'}: ${status === 413 ? 'a body over the transport limit' : `the codes ${codesOf(status)}`}.`,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Status' } } },
        },
      ]),
  );

  return {
    openapi: '3.1.0',
    info: {
      title: 'LoRaWAN stack HTTP API',
      version: 'v3',
      description:
        "The Things Stack's v3 HTTP API as this stack serves it (`/api/v3`), generated from the RPC table and the contract's validation rules. JSON as TTS writes it: field names in snake_case, enums by name, EUIs and keys as hex, other bytes as base64, 64-bit integers as strings, field masks on reads and writes.",
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: API_BASE_PATH }],
    security: [{ bearerAuth: [] }],
    tags: [...services]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, component]) => ({ name, description: `\`${name}\` (served by the ${component.toUpperCase()}).` })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (`Authorization: Bearer NNSXS.…`).' },
      },
      schemas: { ...registry.schemas, FieldMask: FIELD_MASK_SCHEMA, ...errorSchemas() },
      responses,
    },
  };
}
