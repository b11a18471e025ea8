import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { CallerIdentity } from '@lorawan/api';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { ErrApiKeyNotFound, ErrInvalidToken, ErrUnauthenticated, ErrUnsupportedAuthorization } from './gateway-errors';

const ADMIN: CallerIdentity = { kind: 'admin', id: 'admin', universal: true, rights: [] };
/** Bound of the remembered Authorization values (least recently used dropped first). */
const MAX_REMEMBERED = 1000;

/**
 * Resolves `Authorization: Bearer <key>` to a caller identity. Until API keys exist in the IS,
 * the only accepted key is ADMIN_API_KEY (compared in constant time); everything else is refused
 * with the TTS errors for a malformed, unknown or missing token.
 */
@Injectable()
export class Authenticator {
  private readonly adminDigest?: Buffer;
  /**
   * Authorization header values that authenticated, with their identity: a client sends the same
   * header on every request, and the digest and comparison need not be redone each time. Only
   * successes are remembered, so this holds nothing but spellings of the configured admin key
   * (which the process holds anyway); any other token takes the constant-time path every time and
   * is never kept. Never logged.
   */
  private readonly authenticated = new Map<string, CallerIdentity>();

  constructor(@Inject(STACK_CONFIG) config: StackConfig) {
    if (config.adminApiKey) this.adminDigest = digest(config.adminApiKey);
  }

  authenticate(authorization: string | undefined): CallerIdentity {
    if (!authorization) throw ErrUnauthenticated.with();
    const known = this.authenticated.get(authorization);
    if (known) {
      if (this.authenticated.size > 1) {
        this.authenticated.delete(authorization);
        this.authenticated.set(authorization, known);
      }
      return known;
    }
    const identity = this.verify(authorization);
    if (this.authenticated.size >= MAX_REMEMBERED) this.authenticated.delete(this.authenticated.keys().next().value as string);
    this.authenticated.set(authorization, identity);
    return identity;
  }

  private verify(authorization: string): CallerIdentity {
    const space = authorization.indexOf(' ');
    const scheme = space > 0 ? authorization.slice(0, space) : authorization;
    const token = space > 0 ? authorization.slice(space + 1).trim() : '';
    if (scheme.toLowerCase() !== 'bearer') throw ErrUnsupportedAuthorization.with();
    if (!token) throw ErrInvalidToken.with();
    if (this.adminDigest && timingSafeEqual(digest(token), this.adminDigest)) return ADMIN;
    const parts = token.split('.');
    if (parts.length !== 3 || parts.some((p) => p.length === 0)) throw ErrInvalidToken.with();
    throw ErrApiKeyNotFound.with();
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
