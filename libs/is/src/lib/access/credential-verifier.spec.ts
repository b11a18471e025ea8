import type { StackConfig } from '@lorawan/config';
import { hashSecret } from '@lorawan/crypto';
import type { StackError } from '@lorawan/errors';
import { ALL_RIGHTS, impliedRights } from '@lorawan/api';
import { InMemoryApiKeyStore, InMemoryIdentityDirectory } from './access-fixtures.conformance';
import type { ApiKeyRecord } from './api-key.model';
import { generateApiKeyToken } from './api-key-token';
import { CredentialVerifier } from './credential-verifier';

const ADMIN_KEY = 'admin-key-0123456789abcdef';
const config = (adminApiKey?: string) => ({ adminApiKey, adminUserId: 'admin' }) as StackConfig;

describe('CredentialVerifier', () => {
  let store: InMemoryApiKeyStore;
  let directory: InMemoryIdentityDirectory;
  let verifier: CredentialVerifier;

  beforeEach(() => {
    store = new InMemoryApiKeyStore();
    directory = new InMemoryIdentityDirectory().addUser('admin', { admin: true }).addUser('alice').addEntity({ kind: 'application', id: 'app1' });
    verifier = new CredentialVerifier(config(ADMIN_KEY), store, directory);
  });

  async function addKey(owner: ApiKeyRecord['owner'], extra: Partial<ApiKeyRecord> = {}) {
    const t = generateApiKeyToken();
    await store.create({
      id: t.id,
      secret_hash: await hashSecret(t.secret, 10),
      name: '',
      rights: ['RIGHT_APPLICATION_INFO'],
      owner,
      created_at: '2024-05-01T10:00:00.000000Z',
      updated_at: '2024-05-01T10:00:00.000000Z',
      ...extra,
    });
    return t;
  }

  /** The error a verification fails with, as ErrorDetails. */
  async function failure(authorization: string) {
    try {
      await verifier.verify(authorization);
    } catch (err) {
      return (err as StackError).toDetails();
    }
    throw new Error('verification passed');
  }

  it('accepts an application key: its owner and its rights, implied', async () => {
    const t = await addKey({ kind: 'application', id: 'app1' }, { rights: ['RIGHT_APPLICATION_LINK'] });
    const credential = await verifier.verify(`Bearer ${t.token}`);
    expect(credential).toEqual({ kind: 'api-key', id: t.id, owner: { kind: 'application', id: 'app1' }, keyRights: impliedRights(['RIGHT_APPLICATION_LINK']) });
  });

  it('accepts a user key with the user attached', async () => {
    const t = await addKey({ kind: 'user', id: 'alice' }, { rights: ['RIGHT_ALL'] });
    expect(await verifier.verify(`Bearer ${t.token}`)).toMatchObject({
      owner: { kind: 'user', id: 'alice' },
      user: { user_id: 'alice', admin: false, state: 'STATE_APPROVED' },
    });
  });

  it.each(['bearer', 'BEARER', 'BeArEr'])('the scheme is case-insensitive (%s)', async (scheme) => {
    const t = await addKey({ kind: 'application', id: 'app1' });
    await expect(verifier.verify(`${scheme} ${t.token}`)).resolves.toMatchObject({ id: t.id });
  });

  it('accepts the admin key (any format) as the admin user’s key with RIGHT_ALL', async () => {
    const credential = await verifier.verify(`Bearer ${ADMIN_KEY}`);
    expect(credential).toMatchObject({ kind: 'admin-key', id: 'admin-api-key', owner: { kind: 'user', id: 'admin' }, user: { user_id: 'admin', admin: true } });
    expect([...credential.keyRights].sort()).toEqual([...ALL_RIGHTS].sort());
  });

  it('the admin key of a missing bootstrap user is no key', async () => {
    directory.remove({ kind: 'user', id: 'admin' });
    expect(await failure(`Bearer ${ADMIN_KEY}`)).toMatchObject({ namespace: 'pkg/identityserver', name: 'api_key_not_found', code: 16 });
  });

  it('without ADMIN_API_KEY nothing is the admin key', async () => {
    verifier = new CredentialVerifier(config(undefined), store, directory);
    expect(await failure(`Bearer ${ADMIN_KEY}`)).toMatchObject({ namespace: 'pkg/auth', name: 'token', code: 3 });
    expect(await failure('Bearer ')).toMatchObject({ namespace: 'pkg/auth', name: 'token', code: 3 });
  });

  it.each(['Basic dXNlcjpwYXNz', 'Token abc', 'NNSXS.AAA.BBB', ''])(
    'refuses a scheme other than Bearer (%j): 401 unsupported_authorization',
    async (header) => {
      expect(await failure(header)).toMatchObject({ namespace: 'pkg/identityserver', name: 'unsupported_authorization', code: 16 });
    },
  );

  it.each([
    'Bearer',
    'Bearer not-a-token',
    'Bearer NNSXS.ABC.DEF',
    `Bearer MFRWG.${'A'.repeat(39)}.${'A'.repeat(52)}`,
    `Bearer NNSXS.${'A'.repeat(39)}.${'a'.repeat(52)}`,
  ])('refuses a malformed token (%j): 400 pkg/auth:token', async (header) => {
    expect(await failure(header)).toMatchObject({ namespace: 'pkg/auth', name: 'token', message_format: 'invalid token', code: 3 });
  });

  it('an unknown key ID: 401 api_key_not_found', async () => {
    expect(await failure(`Bearer ${generateApiKeyToken().token}`)).toMatchObject({ namespace: 'pkg/identityserver', name: 'api_key_not_found', code: 16 });
  });

  it('a wrong secret: 401 invalid_authorization', async () => {
    const t = await addKey({ kind: 'application', id: 'app1' });
    const other = generateApiKeyToken();
    expect(await failure(`Bearer NNSXS.${t.id}.${other.secret}`)).toMatchObject({ namespace: 'pkg/identityserver', name: 'invalid_authorization', code: 16 });
  });

  it('an expired key: 401 api_key_expired — only told to whoever has the secret', async () => {
    const t = await addKey({ kind: 'application', id: 'app1' }, { expires_at: '2024-01-01T00:00:00.000000Z' });
    expect(await failure(`Bearer ${t.token}`)).toMatchObject({ namespace: 'pkg/identityserver', name: 'api_key_expired', code: 16 });
    expect(await failure(`Bearer NNSXS.${t.id}.${generateApiKeyToken().secret}`)).toMatchObject({ name: 'invalid_authorization' });
  });

  it('a key expiring later works', async () => {
    const t = await addKey({ kind: 'application', id: 'app1' }, { expires_at: new Date(Date.now() + 60_000).toISOString().replace('Z', '000Z') });
    await expect(verifier.verify(`Bearer ${t.token}`)).resolves.toMatchObject({ id: t.id });
  });

  it('a key of a deleted application or user: 401 api_key_not_found', async () => {
    const appKey = await addKey({ kind: 'application', id: 'app1' });
    const userKey = await addKey({ kind: 'user', id: 'alice' });
    directory.remove({ kind: 'application', id: 'app1' }).remove({ kind: 'user', id: 'alice' });
    expect(await failure(`Bearer ${appKey.token}`)).toMatchObject({ name: 'api_key_not_found', code: 16 });
    expect(await failure(`Bearer ${userKey.token}`)).toMatchObject({ name: 'api_key_not_found', code: 16 });
  });

  it('a stored hash gone bad is an internal failure, not a credential error', async () => {
    const t = await addKey({ kind: 'application', id: 'app1' }, { secret_hash: 'garbage' });
    await expect(verifier.verify(`Bearer ${t.token}`)).rejects.toThrow('stored secret hash is not in PBKDF2 format');
  });

  it('no error message carries the token or its secret', async () => {
    const t = await addKey({ kind: 'application', id: 'app1' }, { expires_at: '2024-01-01T00:00:00.000000Z' });
    for (const header of [`Bearer ${t.token}`, `Bearer NNSXS.${t.id}.${generateApiKeyToken().secret}`, `Basic ${t.token}`, `Bearer x${t.token}`]) {
      expect(JSON.stringify(await failure(header))).not.toContain(t.secret);
    }
  });
});
