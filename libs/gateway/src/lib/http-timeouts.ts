import type { HttpEdgeConfig } from '@lorawan/config';

/** Node's default bound on receiving a request's headers. */
const HEADERS_TIMEOUT_MS = 60_000;

/**
 * The HTTP server's timeouts, which bound what a client sends and how long it idles, never how
 * long a response (an event stream) lasts:
 * - a request's headers and body must have arrived HTTP_REQUEST_TIMEOUT_MS after it began (Node's
 *   `requestTimeout`; its headers within 60 s at most), else 408 and the connection closes: a body
 *   sent one byte at a time is cut off, as is a connection that never sends a request;
 * - a connection kept alive without a request is closed after HTTP_IDLE_TIMEOUT_MS (`keepAliveTimeout`);
 * - no timeout on socket inactivity (`connectionTimeout` 0), which would end quiet responses.
 * Node checks the first two every `connectionsCheckingInterval` (30 s by default): here a quarter
 * of the request timeout, at most a second, so that a slow request is cut off close to it.
 */
export function httpTimeouts(config: HttpEdgeConfig) {
  const timeout = config.requestTimeoutMs;
  return {
    /** Options of Node's `http(s).createServer`. */
    server: {
      connectionsCheckingInterval: timeout > 0 ? Math.min(1000, Math.max(50, Math.floor(timeout / 4))) : 1000,
      headersTimeout: timeout > 0 ? Math.min(HEADERS_TIMEOUT_MS, timeout) : HEADERS_TIMEOUT_MS,
    },
    /** Options of fastify. */
    fastify: { requestTimeout: timeout, keepAliveTimeout: config.idleTimeoutMs, connectionTimeout: 0 },
  };
}
