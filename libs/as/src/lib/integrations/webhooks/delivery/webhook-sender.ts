import { Agent, request } from 'undici';
import type { StackError } from '@lorawan/errors';
import { ErrWebhookFormatNotFound } from '../../../errors';
import {
  deliveryErrorDetails,
  type DeliveryErrorDetails,
  ErrForbiddenDestination,
  ErrRequestTimeout,
  ErrTransport,
  ErrWebhookRequest,
} from './delivery.errors';
import { ForbiddenDestinationError, guardedConnector } from './destination-guard';
import { isRetryableStatus } from './retry-policy';
import type { Delivery } from './webhook-job';
import { buildWebhookRequest } from './webhook-request';

export interface WebhookSenderOptions {
  /** PUBLIC_URL (…/api/v3): X-Downlink-Push/Replace and X-Tts-Domain. */
  publicUrl: string;
  /** From connect to the end of the response. */
  timeoutMs: number;
  /** Turns the SSRF guard off (tests, private deployments). */
  allowPrivateNetworks: boolean;
}

/** A delivery attempt's outcome: delivered, or an error (TTS shape) and whether another attempt may succeed. */
export type DeliveryResult = { ok: true } | { ok: false; retryable: boolean; error: StackError; details: DeliveryErrorDetails };

/** TTS `maxResponseSize`: how much of an error response is kept in the error's details. */
const MAX_ERROR_BODY = 1024;
const KEEP_ALIVE_MS = 30_000;
/** A success response's body is read (to keep the connection) up to this size, else the connection is closed. */
const MAX_DISCARDED_BODY = 64 * 1024;

/**
 * POSTs jobs to their webhooks over one keep-alive connection pool. Redirects are never followed
 * (undici's `request` does not) and count as failures; the SSRF guard sits in the pool's
 * connector, so it checks the address actually connected to.
 */
export class WebhookSender {
  private readonly agent: Agent;

  constructor(private readonly o: WebhookSenderOptions) {
    const connect = { timeout: o.timeoutMs };
    this.agent = new Agent({
      keepAliveTimeout: KEEP_ALIVE_MS,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
      connect: o.allowPrivateNetworks ? connect : guardedConnector(connect),
    });
  }

  async send(job: Delivery): Promise<DeliveryResult> {
    const webhookId = job.webhook.ids.webhook_id;
    const format = job.webhook.format || 'json';
    if (format !== 'json') return failure(ErrWebhookFormatNotFound.with({ format }), false);
    /** The URL errors show: the request's once built, else the webhook's base URL (worked out only for an error). */
    let requestUrl: URL | undefined;
    const url = () => shownUrl(requestUrl ?? job.webhook.base_url ?? '');
    let deadline: NodeJS.Timeout | undefined;
    try {
      const req = buildWebhookRequest(job, this.o.publicUrl);
      requestUrl = req.url;
      // As AbortSignal.timeout (a TimeoutError once it expires), but cleared when the attempt ends:
      // AbortSignal.timeout's timer fires (and builds its DOMException) after every request.
      const controller = new AbortController();
      deadline = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), this.o.timeoutMs);
      deadline.unref();
      const signal = controller.signal;
      const res = await request(req.url, { method: 'POST', headers: req.headers, body: req.body, dispatcher: this.agent, signal });
      if (res.statusCode >= 200 && res.statusCode <= 299) {
        // Delivered: a body that then fails or never ends costs the connection, not a retry.
        await res.body.dump({ limit: MAX_DISCARDED_BODY, signal }).catch(() => undefined);
        return { ok: true };
      }
      const body = await readLimited(res.body, MAX_ERROR_BODY);
      const error = ErrWebhookRequest.with({ webhook_id: webhookId, url: url(), status_code: res.statusCode });
      return { ok: false, retryable: isRetryableStatus(res.statusCode), error, details: deliveryErrorDetails(error, body) };
    } catch (err) {
      const { cause, retryable } = classifyTransportError(err, this.o.timeoutMs);
      return failure(ErrWebhookRequest.with({ webhook_id: webhookId, url: url() }, cause), retryable);
    } finally {
      clearTimeout(deadline);
    }
  }

  /** Closes every connection, failing requests still in flight. */
  async destroy(): Promise<void> {
    await this.agent.destroy();
  }
}

/**
 * The URL as errors, events and `health_status` show it: without user info and query, which may
 * carry the receiver's credentials (`https://user:pass@…`, `?token=…`); a query is shown as `?…`.
 * The error details reach whoever may read the application's traffic, not only who may read the
 * webhook.
 */
export function shownUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return String(url)
      .replace(/\/\/[^/@]*@/, '//')
      .replace(/\?.*$/, '?…');
  }
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}${parsed.search ? '?…' : ''}`;
}

function failure(error: StackError, retryable: boolean): DeliveryResult {
  return { ok: false, retryable, error, details: deliveryErrorDetails(error) };
}

/** Timeouts and connection failures are worth another attempt; a refused destination or an invalid request are not. */
export function classifyTransportError(err: unknown, timeoutMs: number): { cause: StackError; retryable: boolean } {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof ForbiddenDestinationError) return { cause: ErrForbiddenDestination.with({ address: e.address }), retryable: false };
  }
  const e = err as Error & { code?: string };
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return { cause: ErrRequestTimeout.with({ timeout_ms: timeoutMs }), retryable: true };
  }
  const invalid = e instanceof TypeError || e.code === 'UND_ERR_INVALID_ARG' || e.code === 'ERR_INVALID_URL';
  return { cause: ErrTransport.with({ message: e.message ?? String(err) }), retryable: !invalid };
}

/** At most `limit` bytes of the body as text (undefined when not valid UTF-8, as TTS); the rest is discarded. */
async function readLimited(body: AsyncIterable<Buffer>, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  const bytes = Buffer.concat(chunks).subarray(0, limit);
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
}
