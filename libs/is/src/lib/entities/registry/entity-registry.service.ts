import {
  ALLOWED_PATHS,
  applyFields,
  type CallerIdentity,
  checkFieldMaskPaths,
  type EntityIdentifiersJson,
  entityIdentifiers,
  type EntityKind,
  nowTimestamp,
  Right,
  type RpcContext,
  selectFields,
} from '@lorawan/api';
import { type EventPublisher, WithTotal } from '@lorawan/component';
import type { StackError } from '@lorawan/errors';
import type { AccessInvalidator } from '../../access-invalidator';
import { ErrAlreadyExists, ErrEntityConcurrentUpdate, ErrIdTaken } from '../../errors';
import type { ApiKeyCleanup, IdentityDirectory } from '../../identity.contracts';
import type { CollaboratedKind, Collaborator, CollaboratorStore } from '../collaborators/collaborator.model';
import { type AccountRef, mustExistAccount } from '../common/accounts';
import { callerAccountId } from '../common/caller';
import { collaboratorAccount, creationContacts } from '../common/contacts';
import { listQuery } from '../common/entity-list';
import { DEFAULT_PATHS, listScope, visibleEntries } from '../common/list-access';
import { updateOptimistically } from '../common/optimistic';
import { requireContactsAreCollaborators } from '../common/update-contacts';
import { effectiveUpdatePaths } from '../common/update-paths';
import type { UserStore } from '../users/user.model';
import type {
  CollaboratedKindSpec,
  CollaboratedStore,
  ContactFields,
  CreateOutcome,
  CreateRequestOf,
  EntityKindSpec,
  GetRequestOf,
  IdsOf,
  ListAnswerOf,
  ListRequestOf,
  PickedFields,
  RegistryStore,
  RemovalOutcome,
  StoredContacts,
  StoredEntity,
  UpdateRequestOf,
} from './entity-kind';

type Empty = Record<string, never>;

function isIdConflict<X>(result: { ok: false; conflict: 'id' } | X): result is { ok: false; conflict: 'id' } {
  return typeof result === 'object' && result !== null && 'conflict' in result && result.conflict === 'id';
}

/** How an Update is carried out: its effective paths and how the changed entity is saved (false: changed meanwhile). */
export interface UpdatePlan<M> {
  paths: string[];
  save: (next: M, expectedUpdatedAt: string) => Promise<boolean>;
}

/**
 * The generic entity registry: Get, Update and Delete of any IS entity kind, from its declaration
 * (`EntityKindSpec`); each change publishes its `<kind>.*` event once it succeeded. A kind's
 * service extends it (or `CollaboratedEntityRegistry`) and overrides only the hooks where it differs.
 */
export abstract class EntityRegistry<K extends EntityKind, M extends StoredEntity<K>, W extends { ids: IdsOf<K> }, S extends RegistryStore<M>> {
  protected constructor(
    protected readonly spec: EntityKindSpec<K, M, W>,
    protected readonly store: S,
    protected readonly invalidator: AccessInvalidator,
    protected readonly events: EventPublisher,
  ) {}

  async get(req: GetRequestOf<K>): Promise<Partial<M>> {
    const paths = req.field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS[`${this.spec.registry}.Get`]);
    return this.present(selectFields(await this.mustGet(this.idOf(req[this.spec.idsKey])), [...DEFAULT_PATHS, ...this.readPaths(paths)]));
  }

  /** Applies the masked paths; identifiers are read-only. The event's data: the request's paths. */
  async update(req: UpdateRequestOf<K, W>, ctx: RpcContext): Promise<Partial<M>> {
    const requested = req.field_mask?.paths ?? [];
    checkFieldMaskPaths(requested, ALLOWED_PATHS[`${this.spec.registry}.Update`]);
    const entity = req[this.spec.kind];
    const { paths, save } = await this.planUpdate(entity, effectiveUpdatePaths(requested, this.spec.updateRules), ctx);
    const id = this.idOf(entity.ids);
    const changes = { ...this.spec.pick(entity), ...(await this.contactChanges(id, entity, paths)) };
    const stored = this.storedPaths(paths);
    const updated = await updateOptimistically(
      () => this.mustGet(id),
      (current) => this.changed(current, { ...applyFields(current, changes, stored), updated_at: nowTimestamp() }, paths),
      save,
      () => ErrEntityConcurrentUpdate.with({ entity_type: this.spec.kind, entity_id: id }),
    );
    this.updated(id, paths);
    this.events.publish(this.spec.events.update, this.identifiers(updated.ids), { ctx, data: [...requested] });
    return this.present(selectFields(updated, [...DEFAULT_PATHS, ...paths]));
  }

  /** Soft delete: the ID stays taken. */
  async delete(ids: IdsOf<K>, ctx: RpcContext): Promise<Empty> {
    const id = this.idOf(ids);
    this.raiseRemoval(id, await this.store.softDelete(id, nowTimestamp()));
    this.invalidate(id);
    this.events.publish(this.spec.events.delete, await this.identifiersOfStored(id), { ctx });
    return {};
  }

  protected idOf(ids: IdsOf<K>): string {
    return ids[this.spec.idKey];
  }

  protected async mustGet(id: string): Promise<M> {
    const entity = await this.store.get(id);
    if (!entity) throw this.spec.notFound(id);
    return entity;
  }

  protected raiseRemoval(id: string, result: RemovalOutcome): void {
    if (result === true || (typeof result === 'object' && result.ok)) return;
    if (result === false || !('count' in result)) throw this.spec.notFound(id);
    throw this.spec.removalBlocked?.(result.count) ?? this.spec.notFound(id);
  }

  /** Drops the access the gateways cached for the entity. */
  protected invalidate(id: string): void {
    this.invalidator.invalidate({ entity: { kind: this.spec.kind, id } });
  }

  /** The identifiers events carry. */
  protected identifiers(ids: M['ids']): EntityIdentifiersJson {
    return entityIdentifiers({ kind: this.spec.kind, id: this.idOf(ids) });
  }

  /** The identifiers of an entity just deleted or restored (hook: a gateway's carry its EUI as stored). */
  protected async identifiersOfStored(id: string): Promise<EntityIdentifiersJson> {
    return entityIdentifiers({ kind: this.spec.kind, id });
  }

  /** Hook: the paths read for a Get or List mask. */
  protected readPaths(paths: readonly string[]): string[] {
    return [...paths];
  }

  /** Hook: an entity as answered. */
  protected present<T extends Partial<M>>(entity: T): T {
    return entity;
  }

  /** Hook: admin-only fields, paths an Update implies, and how it saves. */
  protected async planUpdate(_entity: W, paths: string[], _ctx: RpcContext): Promise<UpdatePlan<M>> {
    return { paths, save: (next, expected) => this.replace(next, expected) };
  }

  /** Saves an updated entity if it still has `expectedUpdatedAt`. */
  protected abstract replace(next: M, expectedUpdatedAt: string): Promise<boolean>;

  /** Hook: the stored contacts an Update sets (none for kinds without collaborators). */
  protected async contactChanges(_id: string, _entity: W, _paths: readonly string[]): Promise<StoredContacts> {
    return {};
  }

  /** Hook: the paths applied to the stored entity. */
  protected storedPaths(paths: string[]): string[] {
    return paths;
  }

  /** Hook: the entity an Update stores, derived from the current one and the applied changes. */
  protected changed(_current: M, next: M, _paths: readonly string[]): M {
    return next;
  }

  /** Hook: after an Update was stored. */
  protected updated(_id: string, _paths: readonly string[]): void {
    // nothing by default
  }
}

/** What the registry of a kind with collaborators uses beside its store. */
export interface CollaboratedRegistryDeps {
  users: UserStore;
  collaborators: CollaboratorStore;
  directory?: IdentityDirectory;
  apiKeys?: ApiKeyCleanup;
  invalidator: AccessInvalidator;
  events: EventPublisher;
}

/**
 * The registry of an entity kind with collaborators (applications, gateways, clients,
 * organizations): Create with its first collaborator holding `RIGHT_ALL`, Lists of a collaborator's
 * entities, contacts that must be collaborators, Restore and Purge (the API keys first: a key
 * outliving its entity would hold rights on a new one of that ID).
 */
export abstract class CollaboratedEntityRegistry<
  K extends CollaboratedKind,
  M extends StoredEntity<K> & StoredContacts,
  W extends { ids: IdsOf<K> } & ContactFields,
  S extends CollaboratedStore<K, M>,
  X extends { ok: false; conflict: string } = never,
> extends EntityRegistry<K, M, W, S> {
  protected readonly users: UserStore;
  protected readonly collaborators: CollaboratorStore;
  private readonly directory?: IdentityDirectory;
  private readonly apiKeys?: ApiKeyCleanup;

  protected constructor(
    protected override readonly spec: CollaboratedKindSpec<K, M, W>,
    store: S,
    deps: CollaboratedRegistryDeps,
  ) {
    super(spec, store, deps.invalidator, deps.events);
    this.users = deps.users;
    this.collaborators = deps.collaborators;
    this.directory = deps.directory;
    this.apiKeys = deps.apiKeys;
  }

  /** Stores the entity with the collaborator holding `RIGHT_ALL`; contacts default to the collaborator. */
  async create(req: CreateRequestOf<K, W>, ctx: RpcContext): Promise<M> {
    const entity = req[this.spec.kind];
    const account = collaboratorAccount(req.collaborator);
    this.admitCollaborator(account);
    const contacts = creationContacts(entity, account);
    await this.requireAccount(account);
    const now = nowTimestamp();
    const { ids, ...fields } = this.spec.pick(entity);
    const stored = this.initial({ ids, created_at: now, updated_at: now, ...fields }, contacts, ctx);
    const result = await this.insert(stored, { ids: account, rights: [Right.RIGHT_ALL] }, entity);
    if (!result.ok) throw isIdConflict(result) ? ErrIdTaken.with({}, ErrAlreadyExists.with()) : this.conflict(stored, result);
    this.events.publish(this.spec.events.create, this.identifiers(stored.ids), { ctx });
    return stored;
  }

  /** The entities of the collaborator the request names, else the caller's (see `listScope`); entries the caller may not read show only their identifiers. */
  async list(req: ListRequestOf, caller: CallerIdentity | undefined): Promise<WithTotal<ListAnswerOf<K, M>>> {
    const paths = req.field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS[`${this.spec.registry}.List`]);
    this.admitListing(req, caller);
    const scope = await listScope(req.collaborator, caller, this.spec.listRight, this.users);
    if (!scope) return new WithTotal({}, 0);
    const page = await this.store.list(listQuery(req, this.spec.idKey, scope.collaborator));
    const entities = page[this.spec.listKey];
    const idOf = (entity: M) => this.idOf(entity.ids);
    const accountId = this.listingAccount(caller);
    const held = accountId ? await this.collaborators.rightsOn(accountId, this.spec.kind, entities.map(idOf)) : new Map();
    const entries = visibleEntries(entities, idOf, this.readPaths(paths), this.spec.infoRight, caller, held, this.spec.secrets).map((entry) =>
      this.present(entry),
    );
    return new WithTotal(entries.length > 0 ? this.listAnswer(entries) : {}, page.total);
  }

  async restore(ids: IdsOf<K>, ctx: RpcContext): Promise<Empty> {
    const id = this.idOf(ids);
    if (!(await this.store.restore(id))) throw this.spec.notFound(id);
    this.invalidate(id);
    this.events.publish(this.spec.events.restore, await this.identifiersOfStored(id), { ctx });
    return {};
  }

  /** Removes the entity (deleted or not) with its collaborators and API keys, freeing its ID. */
  async purge(ids: IdsOf<K>, ctx: RpcContext): Promise<Empty> {
    const id = this.idOf(ids);
    const found = await this.store.get(id, 'any');
    if (!found) throw this.spec.notFound(id);
    await this.beforePurge(id);
    await this.apiKeys?.deleteKeysOf({ kind: this.spec.kind, id });
    this.raiseRemoval(id, await this.store.purge(id));
    this.invalidate(id);
    this.events.publish(this.spec.events.purge, this.identifiers(found.ids), { ctx });
    return {};
  }

  /** Stores a new entity with its first collaborator. */
  protected abstract insert(entity: M, collaborator: Collaborator, request: W): Promise<CreateOutcome<X>>;

  /** Hook: the error of a kind's own Create conflict. */
  protected conflict(_entity: M, _result: X): StackError {
    return ErrIdTaken.with({}, ErrAlreadyExists.with());
  }

  /** Hook: refuses a collaborator before anything else is checked. */
  protected admitCollaborator(_account: AccountRef): void {
    // any account by default
  }

  /** Hook: the collaborator must exist (live). */
  protected async requireAccount(account: AccountRef): Promise<void> {
    if (this.directory) await mustExistAccount(this.directory, account);
  }

  /** Hook: the entity a Create stores. */
  protected initial(
    entity: Omit<PickedFields<M>, 'ids'> & Pick<M, 'ids' | 'created_at' | 'updated_at'>,
    contacts: Required<StoredContacts>,
    _ctx: RpcContext,
  ): M {
    // The picked fields with the timestamps and the contacts are the whole entity (`PickedFields` is `M` without them): TypeScript cannot see through the `Omit`.
    return { ...entity, ...contacts } as M;
  }

  /** Hook: refuses a List before anything is read. */
  protected admitListing(_req: ListRequestOf, _caller: CallerIdentity | undefined): void {
    // any List by default
  }

  /** Hook: the account whose collaborations decide what a List shows in full. */
  protected listingAccount(caller: CallerIdentity | undefined): string | undefined {
    return callerAccountId(caller);
  }

  /** Hook: checks before a purge removes anything. */
  protected async beforePurge(_id: string): Promise<void> {
    // no checks by default
  }

  protected override async contactChanges(id: string, entity: W, paths: readonly string[]): Promise<StoredContacts> {
    return requireContactsAreCollaborators(this.collaborators, { kind: this.spec.kind, id }, entity, paths);
  }

  private listAnswer(entries: Partial<M>[]): ListAnswerOf<K, M> {
    const answer: ListAnswerOf<K, M> = {};
    answer[this.spec.listKey] = entries;
    return answer;
  }
}
