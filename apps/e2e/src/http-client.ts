/**
 * Small HTTP helpers shared by the e2e suites: a fetch wrapper that records every response and
 * assertions for the TTS error shape (wire contract §1.1).
 */
import { expect } from '@jest/globals';

export const ERROR_DETAILS_TYPE = 'type.googleapis.com/ttn.lorawan.v3.ErrorDetails';
/** RFC 3339 UTC with exactly 6 fractional digits. */
export const TIMESTAMP_6 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/** A ULID: 26 Crockford base32 characters. */
export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON of any shape
  json: any;
  ms: number;
}

export interface CallOptions {
  /** JSON-encoded unless a string (sent as is). */
  body?: unknown;
  /** Sent instead of the default headers (no Authorization unless given). */
  headers?: Record<string, string>;
  /** Extra headers merged onto the default ones. */
  extraHeaders?: Record<string, string>;
}

export interface ErrorDetailsJson {
  '@type'?: string;
  namespace: string;
  name: string;
  message_format: string;
  attributes?: Record<string, unknown>;
  correlation_id: string;
  code: number;
  cause?: ErrorDetailsJson;
}

/** What the client needs of a running stack (a `StackUnderTest` from `@lorawan/testing`). */
export interface StackEndpoint {
  baseUrl: string;
  adminKey: string;
}

export class Api {
  /** Every 5xx response except 501 (the expected answer to a wrong method), for the "no 5xx" assertion. */
  readonly serverErrors: string[] = [];

  constructor(private readonly stack: () => StackEndpoint) {}

  async call(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
    const s = this.stack();
    const headers: Record<string, string> = options.headers ?? { authorization: `Bearer ${s.adminKey}`, ...options.extraHeaders };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    const started = Date.now();
    const res = await fetch(s.baseUrl + path, { method, headers, body });
    const text = await res.text();
    const ms = Date.now() - started;
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (res.status >= 500 && res.status !== 501) this.serverErrors.push(`${method} ${path} → ${res.status} ${text}`);
    return { status: res.status, headers: res.headers, text, json, ms };
  }

  get(path: string, options?: CallOptions) {
    return this.call('GET', path, options);
  }
  post(path: string, body: unknown, options?: CallOptions) {
    return this.call('POST', path, { ...options, body });
  }
  put(path: string, body: unknown, options?: CallOptions) {
    return this.call('PUT', path, { ...options, body });
  }
  delete(path: string, options?: CallOptions) {
    return this.call('DELETE', path, options);
  }
}

function describeResponse(res: ApiResponse): string {
  return `HTTP ${res.status}: ${res.text.slice(0, 2000)}`;
}

/** Status check with the body in the failure message. */
export function expectStatus(res: ApiResponse, status: number): void {
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${describeResponse(res)}`);
}

/**
 * Asserts a TTS error response: HTTP status, gRPC code, `message` = `error:<ns>:<name> (…)`,
 * details[0] an ErrorDetails with `@type`, namespace, name, code, correlation_id; attributes
 * (when given) must match. Returns details[0].
 */
export function expectTtsError(
  res: ApiResponse,
  status: number,
  code: number,
  namespace: string,
  name: string,
  attributes?: Record<string, unknown>,
): ErrorDetailsJson {
  expectStatus(res, status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = res.json;
  expect(body).toEqual(expect.objectContaining({ code, message: expect.any(String), details: expect.any(Array) }));
  expect(body.message.startsWith(`error:${namespace}:${name}`)).toBe(true);
  expect(body.details).toHaveLength(1);
  const details = body.details[0] as ErrorDetailsJson;
  expect(details['@type']).toBe(ERROR_DETAILS_TYPE);
  expect(details.namespace).toBe(namespace);
  expect(details.name).toBe(name);
  expect(details.code).toBe(code);
  expect(typeof details.message_format).toBe('string');
  expect(details.correlation_id).toMatch(/^[0-9a-f]{32}$/);
  if (attributes) expect(details.attributes ?? {}).toEqual(expect.objectContaining(attributes));
  return details;
}

/** Follows `cause` to the innermost ErrorDetails. */
export function leafCause(details: ErrorDetailsJson): ErrorDetailsJson {
  let cur = details;
  while (cur.cause) cur = cur.cause;
  return cur;
}

/** A `pkg/errors:validation` 400 whose cause chain ends at `field` (string or pattern). */
export function expectValidationError(res: ApiResponse, field: string | RegExp): ErrorDetailsJson {
  const details = expectTtsError(res, 400, 3, 'pkg/errors', 'validation');
  const leaf = leafCause(details);
  expect(leaf.namespace).toBe('pkg/errors');
  expect(leaf.name).toBe('validation');
  expect(leaf.code).toBe(3);
  const leafField = leaf.attributes?.field;
  if (typeof field === 'string') expect(leafField).toBe(field);
  else expect(leafField).toMatch(field);
  expect(typeof leaf.attributes?.reason).toBe('string');
  return leaf;
}

/** A plain grpc-gateway status `{code, message}` (bad JSON etc.): details optional. */
export function expectPlainStatus(res: ApiResponse, status: number, code: number): void {
  expectStatus(res, status);
  expect(res.json).toEqual(expect.objectContaining({ code, message: expect.any(String) }));
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The bootstrap admin user whose key `StackEndpoint.adminKey` is (`ADMIN_USER_ID`, default `admin`). */
export const ADMIN_USER_ID = 'admin';

/**
 * Creates applications as the admin user (`POST /api/v3/users/admin/applications`), one after the
 * other; each must answer 200. The admin becomes a collaborator with `RIGHT_ALL`, which is what
 * lets the admin key read and write device keys there (an admin has no
 * `RIGHT_APPLICATION_DEVICES_READ_KEYS`/`_WRITE_KEYS` in applications it does not collaborate on),
 * and the IS refuses devices of applications that do not exist (404 `application_not_found`).
 */
export async function createApplications(api: Api, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const res = await api.post(`/api/v3/users/${ADMIN_USER_ID}/applications`, { application: { ids: { application_id: id }, name: `e2e ${id}` } });
    if (res.status !== 200) throw new Error(`create application ${id} as ${ADMIN_USER_ID}: expected HTTP 200, got ${describeResponse(res)}`);
  }
}
