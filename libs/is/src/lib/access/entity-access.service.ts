import { Inject, Injectable } from '@nestjs/common';
import {
  ALL_ADMIN_RIGHTS,
  ALL_RIGHTS,
  type AuthorizeRequest,
  type CallerIdentity,
  type EntityKind,
  type EntityRef,
  impliedRights,
  type Right,
  rightsHeldBy,
  type RpcContext,
  sortRights,
} from '@lorawan/api';
import { ErrApiKeyNotFound, ErrUnauthenticated } from '@lorawan/errors';
import { API_KEY_STORE, type ApiKeyStore } from './api-key.model';
import { ADMIN_KEY_ID, sameEntity } from './credential';
import { CredentialVerifier } from './credential-verifier';
import { RightsResolver } from './rights-resolver';

/** TTS `EntityIdentifiers` as JSON: `{"application_ids":{"application_id":"app1"}}`. */
export type EntityIdentifiersJson = Partial<Record<`${EntityKind}_ids`, Partial<Record<`${EntityKind}_id`, string>>>>;

export interface AuthInfoApiKey {
  id: string;
  name?: string;
  rights?: Right[];
  created_at?: string;
  updated_at?: string;
  expires_at?: string;
}

/** TTS `AuthInfoResponse` (API-key access method only; zero values omitted). */
export interface AuthInfoResponse {
  api_key?: { entity_ids: EntityIdentifiersJson; api_key: AuthInfoApiKey };
  /** A `Rights` message, as TTS's AuthInfoResponse. */
  universal_rights?: { rights: Right[] };
  is_admin?: boolean;
}

/**
 * `EntityAccess`: resolving credentials to a caller with rights (for the gateway), describing
 * the caller (`GET /auth_info`) and listing its rights on an entity (`<Entity>Access.ListRights`).
 */
@Injectable()
export class EntityAccessService {
  constructor(
    private readonly credentials: CredentialVerifier,
    private readonly resolver: RightsResolver,
    @Inject(API_KEY_STORE) private readonly store: ApiKeyStore,
  ) {}

  async authorize({ authorization, entity }: AuthorizeRequest): Promise<CallerIdentity> {
    const credential = await this.credentials.verify(authorization);
    return this.resolver.callerIdentity(credential, entity ? { kind: entity.kind as EntityKind, id: entity.id } : undefined);
  }

  /** The caller's credential, its universal (admin) rights and whether it is an admin; never a secret. */
  async authInfo(ctx: RpcContext): Promise<AuthInfoResponse> {
    const caller = ctx.caller;
    if (!caller) throw ErrUnauthenticated.with();
    if (caller.universal) return { universal_rights: { rights: sortRights(ALL_RIGHTS) } };
    const apiKey = await this.describeKey(caller);
    const res: AuthInfoResponse = { api_key: { entity_ids: entityIdentifiers(caller.owner as EntityRef), api_key: apiKey } };
    if (caller.is_admin) {
      const keyRights = new Set(apiKey.rights);
      res.universal_rights = { rights: sortRights(ALL_ADMIN_RIGHTS.filter((r) => keyRights.has(r))) };
      res.is_admin = true;
    }
    return res;
  }

  /** `{"rights":[…]}`: the caller's rights on the entity (resolved by Authorize), sorted. */
  listRights(entity: EntityRef, ctx: RpcContext): { rights?: Right[] } {
    const caller = ctx.caller;
    const rights = caller?.universal ? rightsHeldBy(entity.kind) : caller && sameEntity(caller.entity, entity) ? caller.rights : [];
    return rights.length > 0 ? { rights: sortRights(rights) } : {};
  }

  /** The key as TTS's auth_info shows it: its rights implied, no secret. */
  private async describeKey(caller: CallerIdentity): Promise<AuthInfoApiKey> {
    if (caller.kind === 'admin-key') return { id: ADMIN_KEY_ID, rights: sortRights(caller.key_rights) };
    const key = await this.store.findById(caller.id);
    if (!key || !sameEntity(key.owner, caller.owner)) throw ErrApiKeyNotFound.with();
    const out: AuthInfoApiKey = { id: key.id };
    if (key.name) out.name = key.name;
    out.rights = sortRights(impliedRights(key.rights));
    out.created_at = key.created_at;
    out.updated_at = key.updated_at;
    if (key.expires_at) out.expires_at = key.expires_at;
    return out;
  }
}

export function entityIdentifiers(entity: EntityRef): EntityIdentifiersJson {
  return { [`${entity.kind}_ids`]: { [`${entity.kind}_id`]: entity.id } };
}
