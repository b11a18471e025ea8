import type { StackConfig } from '@lorawan/config';
import { type StackError } from '@lorawan/errors';
import { Authenticator } from './authenticator';

const config = { adminApiKey: 'NNSXS.ADMINKEYID.ADMINSECRETVALUE' } as StackConfig;

function errorOf(fn: () => unknown): { name: string; code: number } {
  try {
    fn();
  } catch (err) {
    const e = err as StackError;
    return { name: `${e.namespace}:${e.errorName}`, code: e.code };
  }
  throw new Error('expected an error');
}

describe('Authenticator (bootstrap admin key)', () => {
  const auth = new Authenticator(config);

  it('accepts the admin key as a bearer token (scheme case-insensitive)', () => {
    expect(auth.authenticate('Bearer NNSXS.ADMINKEYID.ADMINSECRETVALUE')).toMatchObject({ kind: 'admin', universal: true });
    expect(auth.authenticate('bearer NNSXS.ADMINKEYID.ADMINSECRETVALUE').kind).toBe('admin');
  });

  it('refuses everything else with the TTS errors', () => {
    expect(errorOf(() => auth.authenticate(undefined))).toEqual({ name: 'pkg/identityserver:unauthenticated', code: 16 });
    expect(errorOf(() => auth.authenticate('Basic abc'))).toEqual({ name: 'pkg/identityserver:unsupported_authorization', code: 16 });
    expect(errorOf(() => auth.authenticate('Bearer garbage'))).toEqual({ name: 'pkg/auth:token', code: 3 });
    expect(errorOf(() => auth.authenticate('Bearer NNSXS.ADMINKEYID.WRONG'))).toEqual({ name: 'pkg/identityserver:api_key_not_found', code: 16 });
  });

  it('without ADMIN_API_KEY, nothing is accepted', () => {
    const none = new Authenticator({} as StackConfig);
    expect(errorOf(() => none.authenticate('Bearer NNSXS.ADMINKEYID.ADMINSECRETVALUE')).code).toBe(16);
  });

  it('error messages never contain the presented secret', () => {
    try {
      auth.authenticate('Bearer NNSXS.ADMINKEYID.SECRETSECRET');
    } catch (err) {
      expect(JSON.stringify((err as StackError).toStatus())).not.toContain('SECRETSECRET');
    }
  });
});

describe('Authenticator: remembered authentications', () => {
  it('answers a repeated header from memory, and never remembers a refused one', () => {
    const auth = new Authenticator(config);
    const remembered = (a: Authenticator) => (a as unknown as { authenticated: Map<string, unknown> }).authenticated;
    for (let i = 0; i < 3; i++) expect(auth.authenticate('Bearer NNSXS.ADMINKEYID.ADMINSECRETVALUE').kind).toBe('admin');
    expect(remembered(auth).size).toBe(1);
    for (let i = 0; i < 3; i++) expect(errorOf(() => auth.authenticate('Bearer NNSXS.ADMINKEYID.WRONG')).code).toBe(16);
    expect(errorOf(() => auth.authenticate('Bearer NNSXS.ADMINKEYID.ADMINSECRETVALUEX')).code).toBe(16);
    expect(errorOf(() => auth.authenticate('Basic NNSXS.ADMINKEYID.ADMINSECRETVALUE')).code).toBe(16);
    expect([...remembered(auth).keys()]).toEqual(['Bearer NNSXS.ADMINKEYID.ADMINSECRETVALUE']);
  });

  it('keeps at most 1000 header values, dropping the least recently used', () => {
    const auth = new Authenticator(config);
    const remembered = (auth as unknown as { authenticated: Map<string, unknown> }).authenticated;
    const spelling = (i: number) => `Bearer NNSXS.ADMINKEYID.ADMINSECRETVALUE${' '.repeat(i + 1)}`; // trailing blanks are trimmed
    for (let i = 0; i < 1000; i++) expect(auth.authenticate(spelling(i)).kind).toBe('admin');
    expect(auth.authenticate(spelling(0)).kind).toBe('admin'); // used again: now the most recent
    expect(auth.authenticate(spelling(1000)).kind).toBe('admin');
    expect(remembered.size).toBe(1000);
    expect(remembered.has(spelling(0))).toBe(true);
    expect(remembered.has(spelling(1))).toBe(false);
  });
});
