import type { ConnectionOptions } from 'nats';

/** TLS and credentials of a NATS connection (the StackConfig's `natsSecurity`, or a test's). */
export interface NatsSecurity {
  /** TLS with these PEM files (the CA verifying the server; a client certificate and key for mutual TLS); absent: plain. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  user?: string;
  password?: string;
}

/**
 * The reply inbox prefix of a NATS user: `_INBOX_<user>`, so the broker can let each component
 * subscribe to its own replies only (`npm run nats-config`). Anonymous: nats.js's `_INBOX`.
 */
export function natsInboxPrefix(user: string | undefined): string | undefined {
  return user ? `_INBOX_${user}` : undefined;
}

/**
 * The nats.js options of every connection a process makes (RPC, pub/sub, JetStream queues, KV and
 * history): TLS verified against the configured CA (nats.js reads the files), the component's user,
 * and its own inbox prefix. Empty when nothing is configured, so the connection is as before.
 */
export function natsSecurityOptions(security: NatsSecurity | undefined): Partial<ConnectionOptions> {
  if (!security) return {};
  const options: Partial<ConnectionOptions> = {};
  if (security.tls) {
    const { caFile, certFile, keyFile } = security.tls;
    options.tls = { ...(caFile ? { caFile } : {}), ...(certFile ? { certFile } : {}), ...(keyFile ? { keyFile } : {}) };
  }
  if (security.user) {
    options.user = security.user;
    options.pass = security.password;
    options.inboxPrefix = natsInboxPrefix(security.user);
  }
  return options;
}
