/**
 * Helpers for the identity and authorization e2e suites: API-key tokens (well-formed, unknown,
 * malformed), requests made with a given credential, and the admin's calls that create users,
 * applications, gateways, organizations and API keys (wire contract §5, §6).
 */
import { randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import { type Api, type ApiResponse, type CallOptions } from './http-client';

/** The IS entities with API keys and rights, as the RPC table names them. */
export type Kind = 'application' | 'gateway' | 'user' | 'organization';
export const KINDS: readonly Kind[] = ['application', 'gateway', 'user', 'organization'];

/** The bootstrap admin user whose key is the stack's `ADMIN_API_KEY`. */
export const ADMIN = 'admin';

/** The HTTP collection of each kind: `/api/v3/<collection>/{id}`. */
export const COLLECTION: Record<Kind, string> = { application: 'applications', gateway: 'gateways', user: 'users', organization: 'organizations' };

/** RFC 4648 base32 alphabet (upper case, no padding), as TTS encodes key IDs and secrets. */
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function randomBase32(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += BASE32[bytes[i] % 32];
  return out;
}

/** RFC 4648 base32 (no padding) → bytes. */
export function base32Decode(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of text) {
    value = (value << 5) | BASE32.indexOf(ch);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The forms a secret could leak in: as sent, lower-case, and its bytes as hex and base64. */
export function secretForms(secret: string): string[] {
  const bytes = base32Decode(secret);
  return [
    secret,
    secret.toLowerCase(),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    bytes.toString('base64').replace(/=+$/, ''),
    bytes.toString('base64url'),
  ];
}

/** `NNSXS.<ID 39>.<SECRET 52>`. */
export const TOKEN_PATTERN = /^NNSXS\.([A-Z2-7]{39})\.([A-Z2-7]{52})$/;

/** A well-formed key ID (39 base32 characters) that no key has. */
export const randomKeyId = () => randomBase32(39);
/** A well-formed token of a key that does not exist. */
export const unknownToken = () => `NNSXS.${randomKeyId()}.${randomBase32(52)}`;
/** The key's ID with another (well-formed) secret. */
export const wrongSecretToken = (keyId: string) => `NNSXS.${keyId}.${randomBase32(52)}`;
/** Not `NNSXS.<39>.<52>` (and not the admin key): the gateway answers 400 `pkg/auth:token`. */
export const MALFORMED_TOKENS = ['NNSXS.ABC.DEF', 'not-a-token', `NNSXS.${'A'.repeat(39)}.${'a'.repeat(52)}`, `XXXXX.${'A'.repeat(39)}.${'A'.repeat(52)}`];

/** Request options sending exactly this Authorization header (none when undefined). */
export function auth(authorization: string | undefined): CallOptions {
  return { headers: authorization === undefined ? {} : { authorization } };
}
/** Request options with `Authorization: Bearer <token>`. */
export const bearer = (token: string): CallOptions => auth(`Bearer ${token}`);

export interface CreatedKey {
  /** The key ID (the token's middle part). */
  id: string;
  /** The whole token `NNSXS.<id>.<secret>`. */
  token: string;
  /** The secret (the token's last part). */
  secret: string;
  response: ApiResponse;
}

function describe(res: ApiResponse): string {
  return `HTTP ${res.status}: ${res.text.slice(0, 2000)}`;
}

export function expectHttp(res: ApiResponse, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: expected HTTP ${status}, got ${describe(res)}`);
}

let counter = 0;
const run = randomBytes(2).toString('hex');
/** An ID unique within this test run (ID pattern, at most 36 characters). */
export function freshId(prefix: string): string {
  counter += 1;
  return `${prefix}-${run}${counter.toString(36)}`;
}
/** A random non-zero EUI-64 as upper-case hex. */
export function randomEui(): string {
  for (;;) {
    const b = randomBytes(8);
    if (b.some((x) => x !== 0)) return b.toString('hex').toUpperCase();
  }
}

export const entityPath = (kind: Kind, id: string) => `/api/v3/${COLLECTION[kind]}/${id}`;
export const apiKeysPath = (kind: Kind, id: string) => `${entityPath(kind, id)}/api-keys`;

/**
 * The admin's (or a given credential's) calls that set up users, applications, gateways,
 * organizations and API keys; each must succeed (200), else the test fails with the response.
 */
export class Access {
  /** Every secret a create returned: the suites check that none of them ever reaches a log. */
  readonly secrets: string[] = [];

  constructor(private readonly api: Api) {}

  /**
   * An approved user (as TTS, a user the admin creates is in the state the request names, by
   * default STATE_REQUESTED, and such a user's keys hold no rights here). `options` default to
   * the admin key (the Api's default headers).
   */
  async createUser(id: string, options?: CallOptions, state = 'STATE_APPROVED'): Promise<ApiResponse> {
    const user = { ids: { user_id: id }, primary_email_address: `${id}@example.com`, password: `Pw-${randomBase32(16)}-9`, state };
    const res = await this.api.post('/api/v3/users', { user }, options);
    expectHttp(res, 200, `create user ${id}`);
    return res;
  }

  async createApplication(id: string, owner = ADMIN, options?: CallOptions, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
    const res = await this.api.post(`/api/v3/users/${owner}/applications`, { application: { ids: { application_id: id }, ...extra } }, options);
    expectHttp(res, 200, `create application ${id} under ${owner}`);
    return res;
  }

  async createGateway(id: string, eui = randomEui(), owner = ADMIN, options?: CallOptions, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
    const res = await this.api.post(
      `/api/v3/users/${owner}/gateways`,
      { gateway: { ids: { gateway_id: id, eui }, frequency_plan_id: 'EU_863_870', ...extra } },
      options,
    );
    expectHttp(res, 200, `create gateway ${id} under ${owner}`);
    return res;
  }

  async createOrganization(id: string, owner = ADMIN, options?: CallOptions, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
    const res = await this.api.post(`/api/v3/users/${owner}/organizations`, { organization: { ids: { organization_id: id }, ...extra } }, options);
    expectHttp(res, 200, `create organization ${id} under ${owner}`);
    return res;
  }

  async createEntity(kind: Kind, id: string, options?: CallOptions): Promise<ApiResponse> {
    switch (kind) {
      case 'application':
        return this.createApplication(id, ADMIN, options);
      case 'gateway':
        return this.createGateway(id, randomEui(), ADMIN, options);
      case 'user':
        return this.createUser(id, options);
      case 'organization':
        return this.createOrganization(id, ADMIN, options);
    }
  }

  /** `POST /<kind>s/{id}/api-keys` that must succeed; returns the token split into ID and secret. */
  async createKey(
    kind: Kind,
    entityId: string,
    rights: readonly string[],
    options: { expiresAt?: string; name?: string; as?: CallOptions } = {},
  ): Promise<CreatedKey> {
    const body: Record<string, unknown> = { name: options.name ?? `e2e ${rights.length} rights`, rights };
    if (options.expiresAt) body.expires_at = options.expiresAt;
    const res = await this.api.post(apiKeysPath(kind, entityId), body, options.as);
    expectHttp(res, 200, `create ${kind} API key on ${entityId} with [${rights.join(', ')}]`);
    const token = res.json?.key as string;
    const m = TOKEN_PATTERN.exec(token ?? '');
    if (!m) throw new Error(`create ${kind} API key: "key" is not NNSXS.<39>.<52>: ${res.text.slice(0, 500)}`);
    expect(res.json.id).toBe(m[1]);
    this.secrets.push(m[2]);
    return { id: m[1], token, secret: m[2], response: res };
  }

  /** `X-Total-Count` of a list call that must succeed. */
  async total(path: string, options?: CallOptions): Promise<number> {
    const res = await this.api.get(path, options);
    expectHttp(res, 200, `list ${path}`);
    const header = res.headers.get('x-total-count');
    if (header === null) throw new Error(`list ${path}: no X-Total-Count header`);
    return Number(header);
  }
}

/** The `missing` attribute of an `insufficient_*_rights` error, sorted. */
export function missingOf(res: ApiResponse): string[] {
  const missing = res.json?.details?.[0]?.attributes?.missing;
  return Array.isArray(missing) ? [...(missing as string[])].sort() : [];
}
