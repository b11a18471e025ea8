import { resolveConfig } from './config';
import { UsageError } from './errors';

const files = (map: Record<string, string>) => (path: string) => map[path];

describe('resolveConfig', () => {
  it('flags win over the environment, which wins over the embedded key file', () => {
    const readFile = files({ 'data/admin-api-key': 'FILE-KEY\n' });
    expect(resolveConfig({ flags: { url: 'http://h:1/', apiKey: 'FLAG' }, env: { LORAWAN_API_URL: 'http://e:2', LORAWAN_API_KEY: 'ENV' }, readFile })).toEqual({
      baseUrl: 'http://h:1',
      apiKey: 'FLAG',
    });
    expect(resolveConfig({ flags: {}, env: { LORAWAN_API_URL: 'http://e:2', LORAWAN_API_KEY: 'ENV' }, readFile })).toEqual({
      baseUrl: 'http://e:2',
      apiKey: 'ENV',
    });
    expect(resolveConfig({ flags: {}, env: {}, readFile })).toEqual({ baseUrl: 'http://localhost:1885', apiKey: 'FILE-KEY' });
  });

  it('reads the key file under DATA_DIR', () => {
    expect(resolveConfig({ flags: {}, env: { DATA_DIR: '/tmp/x' }, readFile: files({ '/tmp/x/admin-api-key': 'K' }) }).apiKey).toBe('K');
  });

  it('refuses to go on without a key or with a bad URL', () => {
    expect(() => resolveConfig({ flags: {}, env: {}, readFile: files({}) })).toThrow(UsageError);
    expect(() => resolveConfig({ flags: {}, env: {}, readFile: files({}) })).toThrow(/data\/admin-api-key/);
    expect(() => resolveConfig({ flags: { url: 'localhost:1885', apiKey: 'k' }, env: {}, readFile: files({}) })).toThrow(/http/);
    expect(() => resolveConfig({ flags: { url: 'not a url', apiKey: 'k' }, env: {}, readFile: files({}) })).toThrow(UsageError);
  });
});
