import { ConfigError, loadConfig } from './stack-config';

describe('TLS and NATS credentials settings', () => {
  it('leaves every connection plain and anonymous when none is set', () => {
    const config = loadConfig({ NATS_URL: 'nats://127.0.0.1:4222' });
    expect(config.natsSecurity).toEqual({ tls: undefined, user: undefined, password: undefined });
    expect(config.databaseTls).toBeUndefined();
    expect(config.httpTls).toBeUndefined();
  });

  it('reads the NATS, database and HTTP TLS files and the NATS user', () => {
    const config = loadConfig({
      NATS_URL: 'nats://nats:4222',
      NATS_TLS_CA_FILE: '/tls/ca.pem',
      NATS_TLS_CERT_FILE: '/tls/client.pem',
      NATS_TLS_KEY_FILE: '/tls/client.key',
      NATS_USER: 'as',
      NATS_PASSWORD: 'secret',
      DB_TLS_CA_FILE: '/tls/ca.pem',
      HTTP_TLS_CERT_FILE: '/tls/http.pem',
      HTTP_TLS_KEY_FILE: '/tls/http.key',
    });
    expect(config.natsSecurity).toEqual({
      tls: { caFile: '/tls/ca.pem', certFile: '/tls/client.pem', keyFile: '/tls/client.key' },
      user: 'as',
      password: 'secret',
    });
    expect(config.databaseTls).toEqual({ caFile: '/tls/ca.pem', certFile: undefined, keyFile: undefined });
    expect(config.httpTls).toEqual({ certFile: '/tls/http.pem', keyFile: '/tls/http.key' });
  });

  it('uses TLS for a tls:// URL without a CA file (system CAs)', () => {
    expect(loadConfig({ NATS_URL: 'tls://nats:4222' }).natsSecurity.tls).toEqual({ caFile: undefined, certFile: undefined, keyFile: undefined });
  });

  it('refuses half a pair', () => {
    expect(() => loadConfig({ HTTP_TLS_CERT_FILE: '/tls/http.pem' })).toThrow(ConfigError);
    expect(() => loadConfig({ NATS_TLS_KEY_FILE: '/tls/client.key' })).toThrow(/NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together/);
    expect(() => loadConfig({ NATS_USER: 'is' })).toThrow(/NATS_USER and NATS_PASSWORD/);
    expect(() => loadConfig({ NATS_USER: 'a b', NATS_PASSWORD: 'x' })).toThrow(/NATS_USER may hold/);
  });
});
