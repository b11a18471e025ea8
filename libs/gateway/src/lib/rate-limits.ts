import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ErrRateLimitExceeded } from '@lorawan/errors';

export interface RateLimitConfig {
  /** Requests per minute one API key may make (per gateway process); 0: no limit. */
  perKeyPerMin: number;
  /** Requests per minute one source address may make, whatever its credentials (per gateway process); 0: no limit. */
  perAddressPerMin: number;
}

/** `Bearer NNSXS.<ID>.<SECRET>`: the key's ID (what TTS limits a token by); undefined for any other credential. */
export function apiKeyIdOf(authorization: string | undefined): string | undefined {
  const match = authorization ? /^Bearer NNSXS\.([A-Z2-7]{39})\.[A-Z2-7]+$/i.exec(authorization) : null;
  return match ? match[1].toUpperCase() : undefined;
}

interface Limit {
  limiter: RateLimiterMemory;
  perMin: number;
}

/**
 * The HTTP API's abuse limits, TTS's `http:api` class: every request counts against its source
 * address and, when it carries an API key, against the key (by its ID, so a wrong secret counts
 * too), in windows of a minute. Over either limit the request is answered 429 with TTS's error and
 * `Retry-After`; every answer carries TTS's `X-Rate-Limit-*` headers of the tighter limit. The
 * counters live in the gateway process (each replica limits on its own: with n replicas behind a
 * balancer a client gets up to n times the rate).
 */
export class RateLimits {
  private readonly byKey?: Limit;
  private readonly byAddress?: Limit;

  constructor(config: RateLimitConfig) {
    const limit = (perMin: number, keyPrefix: string): Limit | undefined =>
      perMin > 0 ? { perMin, limiter: new RateLimiterMemory({ points: perMin, duration: 60, keyPrefix }) } : undefined;
    this.byKey = limit(config.perKeyPerMin, 'key');
    this.byAddress = limit(config.perAddressPerMin, 'address');
  }

  get enabled(): boolean {
    return this.byKey !== undefined || this.byAddress !== undefined;
  }

  /**
   * Counts the request; resolves true when it may go on (headers set), false when it has been
   * answered 429.
   */
  async admit(req: FastifyRequest, reply: FastifyReply, refuse: (err: Error) => void): Promise<boolean> {
    const keyId = apiKeyIdOf(req.headers.authorization);
    const checks: Array<{ limit: Limit; resource: string }> = [];
    if (this.byKey && keyId) checks.push({ limit: this.byKey, resource: `http:api:token:${keyId}` });
    if (this.byAddress) checks.push({ limit: this.byAddress, resource: `http:api:ip:${req.ip}` });
    let tightest: { limit: Limit; result: RateLimiterRes } | undefined;
    for (const { limit, resource } of checks) {
      let result: RateLimiterRes;
      try {
        result = await limit.limiter.consume(resource);
      } catch (rejected) {
        if (!(rejected instanceof RateLimiterRes)) throw rejected;
        setHeaders(reply, limit.perMin, rejected, true);
        refuse(ErrRateLimitExceeded.with({ key: resource, rate: limit.perMin }));
        return false;
      }
      if (!tightest || result.remainingPoints / limit.perMin < tightest.result.remainingPoints / tightest.limit.perMin) tightest = { limit, result };
    }
    if (tightest) setHeaders(reply, tightest.limit.perMin, tightest.result, false);
    return true;
  }
}

/** TTS's `X-Rate-Limit-Limit|Available|Reset|Retry` (seconds), and `Retry-After` on a refusal. */
function setHeaders(reply: FastifyReply, perMin: number, result: RateLimiterRes, refused: boolean): void {
  const resetS = Math.ceil(result.msBeforeNext / 1000);
  void reply.header('x-rate-limit-limit', String(perMin));
  void reply.header('x-rate-limit-available', String(Math.max(0, result.remainingPoints)));
  void reply.header('x-rate-limit-reset', String(resetS));
  void reply.header('x-rate-limit-retry', String(refused ? resetS : 0));
  if (refused) void reply.header('retry-after', String(Math.max(1, resetS)));
}
