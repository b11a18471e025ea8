import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type APIKey,
  checkFieldMaskPaths,
  entityIdentifiers,
  type EntityRef,
  type FieldMask,
  IS_EVENTS,
  microsToTimestamp,
  nowTimestamp,
  type Right,
  type RpcContext,
} from '@lorawan/api';
import { EventPublisher, WithTotal } from '@lorawan/component';
import { hashSecret } from '@lorawan/crypto';
import { type ErrorDefinition, ErrValidation, type StackError } from '@lorawan/errors';
import { AccessInvalidator } from '../access-invalidator';
import { ErrApplicationNotFound, ErrGatewayNotFound, ErrOrganizationNotFound, ErrUserNotFound } from '../errors';
import { type ApiKeyCleanup, IDENTITY_DIRECTORY, type IdentityDirectory } from '../identity.contracts';
import { ErrApiKeyConcurrentUpdate, ErrStoreApiKeyNotFound } from './access-errors';
import { API_KEY_STORE, type ApiKeyOrderField, type ApiKeyRecord, type ApiKeyStore } from './api-key.model';
import { generateApiKeyToken } from './api-key-token';
import { assertGrantable } from './grant-policy';

/** The entities that have API keys here. */
export type KeyOwner = EntityRef & { kind: 'application' | 'gateway' | 'user' | 'organization' };

const NOT_FOUND: Record<KeyOwner['kind'], ErrorDefinition> = {
  application: ErrApplicationNotFound,
  gateway: ErrGatewayNotFound,
  user: ErrUserNotFound,
  organization: ErrOrganizationNotFound,
};
/** `<entity>.api-key.create|update|delete`, about the owning entity. */
const EVENTS = {
  application: IS_EVENTS.applicationApiKey,
  gateway: IS_EVENTS.gatewayApiKey,
  user: IS_EVENTS.userApiKey,
  organization: IS_EVENTS.organizationApiKey,
} satisfies Record<KeyOwner['kind'], unknown>;
const DEFAULT_LIMIT = 100;
/** Paths of `<Entity>Access.UpdateAPIKey` (TTS `field_mask_validation.go`); no mask means name and rights (TTS, for old clients). */
const UPDATE_PATHS: ReadonlySet<string> = new Set(['name', 'rights', 'expires_at']);
const DEFAULT_UPDATE_PATHS = ['name', 'rights'];
const UPDATE_ATTEMPTS = 8;

export interface CreateRequest {
  name?: string;
  rights: string[];
  expires_at?: string;
}
export interface ListRequest {
  order?: string;
  limit?: number;
  page?: number;
}
export interface UpdateRequest {
  api_key: APIKey;
  field_mask?: FieldMask;
}

/**
 * API keys of applications, gateways, users and organizations (TTS `<entity>_access.go`). The RPC server has
 * checked `<KIND>_SETTINGS_API_KEYS` on the entity; this service checks what is specific to keys
 * (no escalation, validity, existence) before storing anything. A caller changes (rights, name,
 * expiry) or deletes only keys it could have created: it holds every right of the key, and of its
 * new rights (TTS checks the rights added and removed on update; here a weaker key can neither
 * expire, rename nor delete a stronger one either), decided on the key as it is when written. The secret exists only in the
 * answer to Create; it is never stored, logged or returned again. Create, Update and Delete
 * publish `<entity>.api-key.*` once they succeeded: the key's fields without the secret as data.
 */
@Injectable()
export class ApiKeyService implements ApiKeyCleanup {
  private readonly logger = new Logger('ApiKeys');

  constructor(
    @Inject(API_KEY_STORE) private readonly store: ApiKeyStore,
    @Inject(IDENTITY_DIRECTORY) private readonly directory: IdentityDirectory,
    private readonly invalidator: AccessInvalidator,
    private readonly events: EventPublisher,
  ) {}

  async create(owner: KeyOwner, req: CreateRequest, ctx: RpcContext): Promise<APIKey> {
    const rights = uniqueRights(req.rights, (reason) => ErrValidation.with({ field: 'rights', name: validationName(req), reason }));
    if (req.expires_at !== undefined && !isFuture(req.expires_at))
      throw ErrValidation.with({ field: 'expires_at', name: validationName(req), reason: 'value must be greater than now' });
    assertGrantable(owner, rights, ctx.caller);
    await this.mustExist(owner);
    const token = generateApiKeyToken();
    const now = nowTimestamp();
    const key: ApiKeyRecord = {
      id: token.id,
      secret_hash: await hashSecret(token.secret),
      name: req.name ?? '',
      rights,
      owner,
      created_at: now,
      updated_at: now,
    };
    if (req.expires_at !== undefined) key.expires_at = req.expires_at;
    await this.store.create(key);
    this.logger.log(`created API key ${key.id} of ${owner.kind} ${owner.id}`);
    this.events.publish(EVENTS[owner.kind].create, entityIdentifiers(owner), { ctx, data: toMessage(key) });
    return toMessage(key, token.token);
  }

  async list(owner: KeyOwner, { order, limit, page }: ListRequest): Promise<WithTotal<{ api_keys?: APIKey[] }>> {
    await this.mustExist(owner);
    const pageSize = limit || DEFAULT_LIMIT;
    const { keys, total } = await this.store.list(owner, {
      order: (order?.replace(/^-/, '') || 'api_key_id') as ApiKeyOrderField,
      descending: order?.startsWith('-') ?? false,
      limit: pageSize,
      offset: (Math.max(page ?? 0, 1) - 1) * pageSize,
    });
    return new WithTotal(keys.length > 0 ? { api_keys: keys.map((k) => toMessage(k)) } : {}, total);
  }

  async get(owner: KeyOwner, keyId: string): Promise<APIKey> {
    await this.mustExist(owner);
    return toMessage(await this.mustGet(owner, keyId));
  }

  /**
   * Applies the masked paths (none: `name` and `rights`, TTS's compatibility with older clients).
   * As TTS, an update whose mask covers `rights` but gives none deletes the key (older SDKs delete
   * keys that way, `api-key.delete` event) and answers an empty key.
   */
  async update(owner: KeyOwner, req: UpdateRequest, ctx: RpcContext): Promise<APIKey> {
    const paths = req.field_mask?.paths?.length ? req.field_mask.paths : DEFAULT_UPDATE_PATHS;
    checkFieldMaskPaths(paths, UPDATE_PATHS);
    const { api_key } = req;
    if (paths.includes('rights') && (api_key.rights ?? []).length === 0) {
      await this.delete(owner, api_key.id ?? '', ctx);
      return {};
    }
    const invalid = (field: string, reason: string) =>
      ErrValidation.with(
        { field: 'api_key', name: validationName(req), reason: 'embedded message failed validation' },
        ErrValidation.with({ field, name: 'APIKeyValidationError', reason }),
      );
    const newRights = paths.includes('rights') ? uniqueRights(api_key.rights ?? [], (reason) => invalid('rights', reason)) : undefined;
    if (paths.includes('expires_at') && api_key.expires_at !== undefined && !isFuture(api_key.expires_at))
      throw invalid('expires_at', 'value must be greater than now');
    await this.mustExist(owner);
    const keyId = api_key.id ?? '';
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const existing = await this.mustGet(owner, keyId);
      // The caller holds every right of the key (so every right it removes) and every right it adds.
      assertGrantable(owner, new Set([...existing.rights, ...(newRights ?? [])]), ctx.caller);
      const updated: ApiKeyRecord = { ...existing, updated_at: nowTimestamp() };
      if (paths.includes('name')) updated.name = api_key.name ?? '';
      if (newRights) updated.rights = newRights;
      if (paths.includes('expires_at')) {
        if (api_key.expires_at === undefined) delete updated.expires_at;
        else updated.expires_at = api_key.expires_at;
      }
      if (await this.store.replace(updated, existing.updated_at)) {
        this.invalidator.invalidate({ api_key_id: keyId });
        this.logger.log(`updated API key ${keyId} of ${owner.kind} ${owner.id} (${paths.join(', ')})`);
        this.events.publish(EVENTS[owner.kind].update, entityIdentifiers(owner), { ctx, data: toMessage(updated) });
        return toMessage(updated);
      }
      await pause(attempt);
    }
    throw ErrApiKeyConcurrentUpdate.with({ api_key_id: keyId });
  }

  /** Deletes the key if the caller holds every right of it (as it is when deleted: a concurrent update is read again). */
  async delete(owner: KeyOwner, keyId: string, ctx: RpcContext): Promise<Record<string, never>> {
    await this.mustExist(owner);
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const existing = await this.mustGet(owner, keyId);
      assertGrantable(owner, existing.rights, ctx.caller);
      if (await this.store.delete(owner, keyId, existing.updated_at)) {
        this.invalidator.invalidate({ api_key_id: keyId });
        this.logger.log(`deleted API key ${keyId} of ${owner.kind} ${owner.id}`);
        this.events.publish(EVENTS[owner.kind].delete, entityIdentifiers(owner), { ctx });
        return {};
      }
      await pause(attempt);
    }
    throw ErrApiKeyConcurrentUpdate.with({ api_key_id: keyId });
  }

  /** `ApiKeyCleanup`: the entity is purged, its keys go with it. */
  async deleteKeysOf(entity: EntityRef): Promise<void> {
    const ids = await this.store.deleteAllOf(entity);
    for (const id of ids) this.invalidator.invalidate({ api_key_id: id });
    if (ids.length > 0) this.logger.log(`deleted ${ids.length} API key(s) of ${entity.kind} ${entity.id}`);
  }

  private async mustExist(owner: KeyOwner): Promise<void> {
    if (!(await this.directory.exists(owner))) throw NOT_FOUND[owner.kind].with({ [`${owner.kind}_id`]: owner.id });
  }

  private async mustGet(owner: KeyOwner, keyId: string): Promise<ApiKeyRecord> {
    const key = await this.store.get(owner, keyId);
    if (!key) throw notFound(owner, keyId);
    return key;
  }
}

/** The key on the wire (TTS `APIKey`, zero values omitted); `key` (the whole token) only from Create. */
export function toMessage(key: ApiKeyRecord, token?: string): APIKey {
  const out: APIKey = { id: key.id };
  if (token !== undefined) out.key = token;
  if (key.name) out.name = key.name;
  out.rights = [...key.rights];
  out.created_at = key.created_at;
  out.updated_at = key.updated_at;
  if (key.expires_at) out.expires_at = key.expires_at;
  return out;
}

function notFound(owner: EntityRef, keyId: string): StackError {
  return ErrStoreApiKeyNotFound.with({ entity_type: owner.kind, entity_id: owner.id, api_key_id: keyId });
}

/** Rights as granted: at least one, each once (TTS `repeated = { min_items: 1, unique: true }`). */
function uniqueRights(rights: string[], invalid: (reason: string) => StackError): Right[] {
  if (rights.length === 0) throw invalid('value must contain at least 1 item(s)');
  if (new Set(rights).size !== rights.length) throw invalid('repeated value must contain unique items');
  return rights as Right[];
}

/** A short random pause before another optimistic attempt, growing with the attempts. */
function pause(attempt: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.random() * (2 + attempt * 2)));
}

function isFuture(timestamp: string): boolean {
  return timestamp > microsToTimestamp(Date.now() * 1000);
}

function validationName(req: object): string {
  return `${req.constructor.name}ValidationError`;
}
