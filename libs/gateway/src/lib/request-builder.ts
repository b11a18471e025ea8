import { Code } from '@lorawan/errors';
import { exceedsJsonDepth, type HttpBinding, MAX_JSON_DEPTH, normalizeFieldNames, safePathParts, setPath } from '@lorawan/api';
import type { ClassConstructor } from 'class-transformer';
import { PlainStatus } from './gateway-errors';

type Obj = Record<string, unknown>;

/** A compiled HTTP binding: the Fastify path and the request field each path variable fills. */
export interface CompiledBinding {
  fastifyPath: string;
  variables: string[];
  pattern: RegExp;
  /** Parameter name and field path parts of each path variable, split and checked once. */
  setters?: Array<{ param: string; parts: string[] }>;
}

export function compileBinding(binding: HttpBinding, prefix = '/api/v3'): CompiledBinding {
  const variables: string[] = [];
  const fastifyPath =
    prefix +
    binding.path.replace(/\{([a-z0-9_.]+)\}/g, (_, field: string) => {
      variables.push(field);
      return `:p${variables.length - 1}`;
    });
  const pattern = new RegExp(`^${(prefix + binding.path).replace(/\{[a-z0-9_.]+\}/g, '[^/]+')}/?$`);
  const parts = variables.map((field) => field.split('.'));
  // Variables of the RPC table are valid field paths; were one not, every request would refuse it.
  const setters = parts.every(safePathParts) ? parts.map((p, i) => ({ param: `p${i}`, parts: p })) : undefined;
  return { fastifyPath, variables, pattern, setters };
}

/** grpc-gateway's map entry in a query, `attributes_contain[room]=x`: the map field's path and the key. */
const MAP_ENTRY = /^([^[\]]+)\[([^[\]]+)\]$/;

/** A query parameter's field path (a map entry's: the map's path and its key), refused when it is not one (empty parts, prototype keys). */
function setField(target: Obj, path: string, value: unknown): void {
  const entry = MAP_ENTRY.exec(path);
  const parts = entry ? [...entry[1].split('.'), entry[2]] : path.split('.');
  if (!safePathParts(parts)) throw new PlainStatus(Code.InvalidArgument, `invalid field path "${path}"`);
  setPath(target, parts, value);
}

/**
 * grpc-gateway semantics: the body (`body: '*'`) is the whole request message; on routes without
 * a body, query parameters fill fields by dotted name (`field_mask=a,b`, `field_mask.paths=a`);
 * path variables are applied last and override the same fields in the body.
 */
export function buildRequest(
  binding: HttpBinding,
  compiled: CompiledBinding,
  params: Record<string, string>,
  query: Record<string, string | string[]>,
  rawBody: string | undefined,
  requestClass?: ClassConstructor<object>,
): Obj {
  let request: Obj = {};
  if (binding.body === '*') {
    const body = parseBody(rawBody);
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw new PlainStatus(Code.InvalidArgument, 'request body must be a JSON object');
    }
    request = (body as Obj | undefined) ?? {};
  } else {
    for (const [key, value] of Object.entries(query)) {
      // Repeated fields (`field_mask.paths`, TTS's `device_ids`) take one value per parameter, one or many.
      const repeated = key.endsWith('.paths') || key.endsWith('_ids');
      if (Array.isArray(value) && !repeated) throw new PlainStatus(Code.InvalidArgument, `too many values for field "${key}"`);
      setField(request, key, repeated && !Array.isArray(value) ? [value] : value);
    }
    // Dotted names nest as deep as they have parts.
    refuseTooDeep(request, 'query parameters');
  }
  if (requestClass) normalizeFieldNames(requestClass, request);
  if (compiled.setters) for (const { param, parts } of compiled.setters) setPath(request, parts, params[param]);
  else compiled.variables.forEach((field, i) => setField(request, field, params[`p${i}`]));
  return request;
}

/** Bodies are read as text and decoded only by routes that take one (grpc-gateway ignores others); empty = empty message. */
function parseBody(raw: string | undefined): unknown {
  if (raw === undefined || raw.trim() === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(raw) as unknown;
  } catch (err) {
    throw new PlainStatus(Code.InvalidArgument, `invalid JSON body: ${(err as Error).message}`);
  }
  refuseTooDeep(body, 'request body');
  return body;
}

/**
 * A request nesting deeper than MAX_JSON_DEPTH is refused before anything walks it: JSON.parse
 * reads any depth, but JSON.stringify (forwarding it) and other recursive walks overflow the stack
 * a few thousand levels down. The component's `decodeMessage` checks the same bound.
 */
function refuseTooDeep(value: unknown, what: string): void {
  if (exceedsJsonDepth(value, MAX_JSON_DEPTH))
    throw new PlainStatus(Code.InvalidArgument, `${what} nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`);
}
