import { natsInboxPrefix, natsSecurityOptions } from './nats-security';

describe('natsSecurityOptions', () => {
  it('adds nothing without settings', () => {
    expect(natsSecurityOptions(undefined)).toEqual({});
    expect(natsSecurityOptions({})).toEqual({});
  });

  it('passes the TLS files and the user, with its own inbox prefix', () => {
    expect(natsSecurityOptions({ tls: { caFile: '/ca.pem', certFile: '/c.pem', keyFile: '/c.key' }, user: 'ns', password: 'pw' })).toEqual({
      tls: { caFile: '/ca.pem', certFile: '/c.pem', keyFile: '/c.key' },
      user: 'ns',
      pass: 'pw',
      inboxPrefix: '_INBOX_ns',
    });
    expect(natsSecurityOptions({ tls: {} })).toEqual({ tls: {} });
    expect(natsInboxPrefix(undefined)).toBeUndefined();
  });
});
