import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { Code, ErrRateLimitExceeded, isStackError } from '@lorawan/errors';
import { gsLbsAuthRefused } from '@lorawan/observability';
import { ErrTooManyPendingAuthorizations } from '../../errors';

export interface AuthLimitOptions {
  /** Failed authentications one remote address may have per minute (0: no limit). */
  failuresPerMin: number;
  /** Authentications in progress at once on this GS replica (0: no limit). */
  maxPending: number;
}

/** What a refusal of the gateway's credential or identity is (the key, its rights, the EUI): a failure its address pays for. */
const FAILURES = new Set<Code>([Code.Unauthenticated, Code.PermissionDenied, Code.NotFound, Code.InvalidArgument]);

/**
 * The LNS's abuse limits on authentication (each attempt with a key costs the Identity Server a
 * hash check): every attempt counts against its remote address at once (the HTTP edge's
 * mechanism, `rate-limiter-flexible` windows of a minute) and is given back when it succeeds or
 * the IS could not answer, so what an address holds is its failed and pending attempts of the
 * minute; beyond `failuresPerMin` it is refused with TTS's `rate_limit_exceeded` (429) before the
 * IS is asked. At most `maxPending` attempts are in progress at once (else 429
 * `too_many_pending_authorizations`). Each refusal is counted (`lorawan_gs_lbs_auth_refused_total`).
 * The counters live in the GS replica.
 */
export class AuthLimits {
  private readonly failures?: RateLimiterMemory;
  private pending = 0;

  constructor(private readonly o: AuthLimitOptions) {
    if (o.failuresPerMin > 0) this.failures = new RateLimiterMemory({ points: o.failuresPerMin, duration: 60, keyPrefix: 'lbs-auth' });
  }

  /** Runs `authenticate` for a gateway at `address` within the limits; rejects with a 429 refusal before it runs when over one. */
  async guard<T>(address: string, authenticate: () => Promise<T>): Promise<T> {
    if (this.o.maxPending > 0 && this.pending >= this.o.maxPending) {
      gsLbsAuthRefused.inc({ reason: 'pending' });
      throw ErrTooManyPendingAuthorizations.with({ max: this.o.maxPending });
    }
    const resource = `gs:lbs:auth:ip:${address}`;
    if (this.failures) {
      try {
        await this.failures.consume(resource);
      } catch (rejected) {
        if (!(rejected instanceof RateLimiterRes)) throw rejected;
        gsLbsAuthRefused.inc({ reason: 'failures' });
        throw ErrRateLimitExceeded.with({ key: resource, rate: this.o.failuresPerMin });
      }
    }
    this.pending++;
    let failed = false;
    try {
      return await authenticate();
    } catch (err) {
      failed = isStackError(err) && FAILURES.has(err.code);
      throw err;
    } finally {
      this.pending--;
      if (this.failures && !failed) await this.failures.reward(resource).catch(() => undefined);
    }
  }
}
