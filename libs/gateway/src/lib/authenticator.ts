import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  ACCESS_INVALIDATION_SUBJECT,
  batchEntityIds,
  type AccessInvalidation,
  type CallerIdentity,
  type EntityRef,
  ID_MAX_LENGTH,
  ID_PATTERN,
  invalidationAffects,
  rightsTarget,
  RPCS,
  type RpcDefinition,
} from '@lorawan/api';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { Code, StackError } from '@lorawan/errors';
import { decode, type PubSub, PUBSUB, type Subscription } from '@lorawan/transport';
import { ErrUnauthenticated } from './gateway-errors';
import { RpcForwarder } from './rpc-forwarder';

/** Bound of the remembered resolutions (least recently used dropped first). */
const MAX_ENTRIES = 10_000;
/** Answers that stay true for a given token: a malformed token, an unknown key, a wrong secret, an expired key. */
const CACHEABLE_FAILURES = new Set<Code>([Code.InvalidArgument, Code.Unauthenticated]);

interface Entry {
  expires: number;
  caller?: CallerIdentity;
  error?: StackError;
}

/**
 * Resolves `Authorization: Bearer <key>` to the caller and its rights on the request's entity by
 * asking the Identity Server (`EntityAccess.Authorize`), which owns the keys. Resolutions are
 * remembered for AUTH_CACHE_TTL_MS per (credential, entity), but never past the key's
 * `expires_at`: from that instant the IS is asked again (and refuses the key), so a client's steady
 * stream of requests costs one lookup per few seconds; the IS broadcasts key and entity changes
 * (`access.invalidate`) and every gateway replica drops the affected entries at once. Concurrent
 * misses for the same entry share one lookup. Credentials are never logged.
 */
@Injectable()
export class Authenticator implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Authenticator');
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<CallerIdentity>>();
  private readonly ttlMs: number;
  /** Bumped by every invalidation: a lookup that started before one is answered but not remembered. */
  private generation = 0;
  private subscription?: Subscription;
  /** Told of every invalidation once the cache has dropped what it affects (long-lived requests: event streams). */
  private readonly listeners = new Set<(msg: AccessInvalidation) => void>();

  constructor(
    @Inject(STACK_CONFIG) config: StackConfig,
    @Inject(PUBSUB) private readonly pubsub: PubSub,
    private readonly forwarder: RpcForwarder,
  ) {
    this.ttlMs = config.authCacheTtlMs;
  }

  onModuleInit(): void {
    this.subscription = this.pubsub.subscribe(ACCESS_INVALIDATION_SUBJECT, (payload) => {
      try {
        this.invalidate(decode<AccessInvalidation>(payload));
      } catch (err) {
        this.logger.warn({ error: (err as Error).message }, 'ignored a malformed access invalidation');
      }
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }

  /** The caller of an RPC, with its rights on the RPC's entity in `request`. */
  async authenticate(authorization: string | undefined, rpc: RpcDefinition, request: object, requestId: string): Promise<CallerIdentity> {
    if (rpc.entities) {
      const { kind } = rpc.entities;
      // Malformed IDs get no rights looked up: the component's validation names the bad field.
      const ids = batchEntityIds(rpc, request).filter(isEntityId);
      return this.authenticateEntities(
        authorization,
        ids.map((id) => ({ kind, id })),
        requestId,
      );
    }
    const target = rightsTarget(rpc, request);
    const id = target?.id;
    // An ID that is not one gets no rights looked up: the component's validation names the bad field.
    const entity: EntityRef | undefined = target && isEntityId(id) ? { kind: target.kind, id } : undefined;
    return this.authenticateEntity(authorization, entity, requestId);
  }

  /**
   * The caller with its rights on a given entity (none: the credential alone is checked), for
   * requests about several entities at once (an event stream resolves each requested one).
   */
  async authenticateEntity(authorization: string | undefined, entity: EntityRef | undefined, requestId: string): Promise<CallerIdentity> {
    if (!authorization) throw ErrUnauthenticated.with();
    const key = entity ? `${authorization}\n${entity.kind}:${entity.id}` : authorization;
    const entry = this.entries.get(key);
    if (entry) {
      if (entry.expires > Date.now()) {
        if (entry.caller) return entry.caller;
        throw entry.error as StackError;
      }
      this.entries.delete(key);
    }
    let lookup = this.pending.get(key);
    if (!lookup) {
      lookup = this.resolve(key, authorization, entity, requestId).finally(() => this.pending.delete(key));
      this.pending.set(key, lookup);
    }
    return lookup;
  }

  /**
   * The caller with its rights on each of several entities in `entity_rights` (an event stream's, a
   * batch's), and on none in `rights`: each is resolved (and remembered) as one entity alone.
   */
  async authenticateEntities(authorization: string | undefined, entities: EntityRef[], requestId: string): Promise<CallerIdentity> {
    if (entities.length === 0) return { ...credentialOnly(await this.authenticateEntity(authorization, undefined, requestId)), entity_rights: [] };
    const resolved = await Promise.all(entities.map((entity) => this.authenticateEntity(authorization, entity, requestId)));
    return { ...credentialOnly(resolved[0]), entity_rights: resolved.map((c, i) => ({ entity: entities[i], rights: c.rights })) };
  }

  /** Drops what was remembered for a changed key or entity, then tells the listeners. */
  invalidate(msg: AccessInvalidation): void {
    if (msg.all) this.entries.clear();
    for (const [key, entry] of this.entries) {
      if (entry.caller && invalidationAffects(msg, entry.caller)) this.entries.delete(key);
    }
    this.generation++;
    for (const listener of this.listeners) listener(msg);
  }

  /** Calls `listener` after each invalidation (when a lookup already answers afresh); returns the unsubscribe. */
  onInvalidation(listener: (msg: AccessInvalidation) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async resolve(key: string, authorization: string, entity: EntityRef | undefined, requestId: string): Promise<CallerIdentity> {
    const started = this.generation;
    try {
      const { body } = await this.forwarder.forward(RPCS['EntityAccess.Authorize'], { authorization, entity }, { request_id: requestId, correlation_ids: [] });
      const caller = body as CallerIdentity;
      this.remember(key, { expires: Math.min(Date.now() + this.ttlMs, keyExpiry(caller)), caller }, started);
      return caller;
    } catch (err) {
      if (err instanceof StackError && CACHEABLE_FAILURES.has(err.code)) this.remember(key, { expires: Date.now() + this.ttlMs, error: err }, started);
      throw err;
    }
  }

  private remember(key: string, entry: Entry, generation: number): void {
    if (this.ttlMs <= 0 || generation !== this.generation || entry.expires <= Date.now()) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, entry);
  }
}

/** A well-formed entity ID (only those get rights looked up). */
export function isEntityId(id: unknown): id is string {
  return typeof id === 'string' && id.length <= ID_MAX_LENGTH && ID_PATTERN.test(id);
}

/** The identity without the rights of one entity (a multi-entity caller's are in `entity_rights`). */
function credentialOnly(caller: CallerIdentity): CallerIdentity {
  const { entity: _entity, ...rest } = caller;
  return { ...rest, rights: [] };
}

/** When the caller's key stops being valid (ms since the epoch; never for a key without `expires_at`). */
function keyExpiry(caller: CallerIdentity): number {
  const at = caller.expires_at === undefined ? NaN : Date.parse(caller.expires_at);
  return Number.isNaN(at) ? Infinity : at;
}
