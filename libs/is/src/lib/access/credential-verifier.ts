import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { microsToTimestamp, impliedRights, Right } from '@lorawan/api';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { verifySecret } from '@lorawan/crypto';
import { ErrApiKeyNotFound, ErrInvalidToken, ErrUnsupportedAuthorization } from '@lorawan/errors';
import { IDENTITY_DIRECTORY, type IdentityDirectory } from '../identity.contracts';
import { ErrApiKeyExpired, ErrInvalidAuthorization } from './access-errors';
import { API_KEY_STORE, type ApiKeyStore } from './api-key.model';
import { parseApiKeyToken } from './api-key-token';
import { ADMIN_KEY_ID, type VerifiedCredential } from './credential';

const ADMIN_KEY_RIGHTS = impliedRights([Right.RIGHT_ALL]);

/**
 * Checks an `Authorization` header (TTS `entity_access.go` `authInfo`): the Bearer scheme, then the
 * admin key (ADMIN_API_KEY, compared as SHA-256 digests in constant time), else an `NNSXS.` key:
 * known ID, matching secret (PBKDF2, on the thread pool), not expired, owner still there. The
 * secret is never logged, stored or returned; nothing is cached here (the gateway caches results).
 */
@Injectable()
export class CredentialVerifier {
  private readonly adminKeyDigest?: Buffer;
  private readonly adminUserId: string;

  constructor(
    @Inject(STACK_CONFIG) config: StackConfig,
    @Inject(API_KEY_STORE) private readonly store: ApiKeyStore,
    @Inject(IDENTITY_DIRECTORY) private readonly directory: IdentityDirectory,
  ) {
    this.adminKeyDigest = config.adminApiKey ? digest(config.adminApiKey) : undefined;
    this.adminUserId = config.adminUserId;
  }

  async verify(authorization: string): Promise<VerifiedCredential> {
    const header = authorization.trim();
    const space = header.indexOf(' ');
    const scheme = space < 0 ? header : header.slice(0, space);
    if (scheme.toLowerCase() !== 'bearer') throw ErrUnsupportedAuthorization.with();
    const token = space < 0 ? '' : header.slice(space + 1).trim();

    if (this.adminKeyDigest && timingSafeEqual(digest(token), this.adminKeyDigest)) {
      const owner = { kind: 'user' as const, id: this.adminUserId };
      return { kind: 'admin-key', id: ADMIN_KEY_ID, owner, keyRights: ADMIN_KEY_RIGHTS, user: await this.userOrFail(owner.id) };
    }

    const parsed = parseApiKeyToken(token);
    if (!parsed) throw ErrInvalidToken.with();
    const key = await this.store.findById(parsed.id);
    if (!key) throw ErrApiKeyNotFound.with();
    if (!(await verifySecret(parsed.secret, key.secret_hash))) throw ErrInvalidAuthorization.with();
    if (key.expires_at !== undefined && key.expires_at <= microsToTimestamp(Date.now() * 1000)) throw ErrApiKeyExpired.with();
    const credential: VerifiedCredential = { kind: 'api-key', id: key.id, owner: key.owner, keyRights: impliedRights(key.rights), expiresAt: key.expires_at };
    // A key whose entity is gone (deleted, not yet purged) is as good as no key (TTS: the store does not find it).
    if (key.owner.kind === 'user') credential.user = await this.userOrFail(key.owner.id);
    else if (!(await this.directory.exists(key.owner))) throw ErrApiKeyNotFound.with();
    return credential;
  }

  private async userOrFail(userId: string) {
    const user = await this.directory.user(userId);
    if (!user) throw ErrApiKeyNotFound.with();
    return user;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
