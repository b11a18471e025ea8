import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type CallerIdentity,
  type Collaborator as CollaboratorMessage,
  entityIdentifiers,
  impliedRights,
  IS_EVENTS,
  nowTimestamp,
  type OrganizationOrUserIdentifiers,
  type Right,
  rightsOfKind,
  type RpcContext,
  sortRights,
} from '@lorawan/api';
import { EventPublisher, WithTotal } from '@lorawan/component';
import { type ErrorDefinition, ErrValidation } from '@lorawan/errors';
import { AccessInvalidator } from '../../access-invalidator';
import { assertGrantable } from '../../access/grant-policy';
import { ErrApplicationNotFound, ErrGatewayNotFound, ErrOrganizationsUnsupported, ErrUserNotFound } from '../../errors';
import { IDENTITY_DIRECTORY, type IdentityDirectory } from '../../identity.contracts';
import { ErrApplicationNeedsCollaborator, ErrCollaboratorIsContact, ErrGatewayNeedsCollaborator, ErrMembershipNotFound } from './collaborator-errors';
import {
  type CollaboratedKind,
  type CollaboratedRef,
  type Collaborator,
  COLLABORATOR_STORE,
  type CollaboratorOrderField,
  type CollaboratorState,
  type CollaboratorStore,
} from './collaborator.model';

/** The kinds whose collaborators the `<Entity>Access` collaborator RPCs manage here. */
export type ManagedKind = Extract<CollaboratedKind, 'application' | 'gateway'>;
export type ManagedRef = CollaboratedRef & { kind: ManagedKind };

/** What differs between those kinds. */
interface KindRules {
  notFound: ErrorDefinition;
  needsCollaborator: ErrorDefinition;
  /** The right one collaborator must always keep (TTS: "at least one collaborator with all rights"). */
  all: Right;
  /** The right managing collaborators; without it, List shows identifiers only (TTS `PublicSafe`). */
  manage: Right;
  events: { update: (typeof IS_EVENTS)['applicationCollaborator']['update']; delete: (typeof IS_EVENTS)['applicationCollaborator']['delete'] };
}

const RULES: Record<ManagedKind, KindRules> = {
  application: {
    notFound: ErrApplicationNotFound,
    needsCollaborator: ErrApplicationNeedsCollaborator,
    all: 'RIGHT_APPLICATION_ALL',
    manage: 'RIGHT_APPLICATION_SETTINGS_COLLABORATORS',
    events: IS_EVENTS.applicationCollaborator,
  },
  gateway: {
    notFound: ErrGatewayNotFound,
    needsCollaborator: ErrGatewayNeedsCollaborator,
    all: 'RIGHT_GATEWAY_ALL',
    manage: 'RIGHT_GATEWAY_SETTINGS_COLLABORATORS',
    events: IS_EVENTS.gatewayCollaborator,
  },
};

const DEFAULT_LIMIT = 100;

export interface ListCollaboratorsRequest {
  order?: string;
  limit?: number;
  page?: number;
}

/** A collaborator on the wire (TTS `Collaborator`, also the shape of `GetCollaboratorResponse`). */
export interface CollaboratorJson {
  ids: { user_ids: { user_id: string } };
  rights?: Right[];
}

/**
 * Collaborators of applications and gateways (TTS `application_access.go`, `gateway_access.go`).
 * The RPC server has checked the caller's rights on the entity (`<KIND>_SETTINGS_COLLABORATORS`
 * for Get, Set, Delete; some right for List); this service applies the rules of membership:
 *
 * - the collaborator is an existing user (organizations do not exist here yet, and are refused);
 * - rights are of the entity's kind (or `RIGHT_ALL`), and the caller holds every right it adds, and
 *   every right it takes away unless it removes the collaborator (TTS);
 * - one collaborator always keeps `<KIND>_ALL`, and a contact cannot be deleted (TTS).
 *
 * The rules are decided on the state read in the transaction that writes, so concurrent changes
 * cannot together break them. A change takes effect at once: the gateways drop the rights they
 * cached for the entity. Set and Delete publish `<kind>.collaborator.update|delete`.
 */
@Injectable()
export class CollaboratorService {
  private readonly logger = new Logger('Collaborators');

  constructor(
    @Inject(COLLABORATOR_STORE) private readonly store: CollaboratorStore,
    @Inject(IDENTITY_DIRECTORY) private readonly directory: IdentityDirectory,
    private readonly invalidator: AccessInvalidator,
    private readonly events: EventPublisher,
  ) {}

  async list(
    entity: ManagedRef,
    { order, limit, page }: ListCollaboratorsRequest,
    ctx: RpcContext,
  ): Promise<WithTotal<{ collaborators?: CollaboratorJson[] }>> {
    await this.mustExist(entity);
    const pageSize = limit || DEFAULT_LIMIT;
    const { collaborators, total } = await this.store.list(entity, {
      order: (order?.replace(/^-/, '') || 'id') as CollaboratorOrderField,
      descending: order?.startsWith('-') ?? false,
      limit: pageSize,
      offset: (Math.max(page ?? 0, 1) - 1) * pageSize,
    });
    const withRights = holds(ctx.caller, entity, RULES[entity.kind].manage);
    const out = collaborators.map((c) => toMessage(c.user_id, withRights ? c.rights : undefined));
    return new WithTotal(out.length > 0 ? { collaborators: out } : {}, total);
  }

  async get(entity: ManagedRef, ids: OrganizationOrUserIdentifiers | undefined): Promise<CollaboratorJson> {
    const userId = memberUserId(ids, 'collaborator');
    await this.mustExist(entity);
    const rights = await this.store.rightsOf(userId, entity);
    if (rights.length === 0) throw membershipNotFound(entity, userId);
    return toMessage(userId, rights);
  }

  /** Sets the collaborator's rights; no rights removes it (TTS; DeleteCollaborator is the explicit way). */
  async set(entity: ManagedRef, collaborator: CollaboratorMessage, ctx: RpcContext): Promise<Record<string, never>> {
    const userId = memberUserId(collaborator.ids, 'collaborator.ids');
    const rights = validRights(entity.kind, collaborator.rights ?? []);
    const rules = RULES[entity.kind];
    const previous = await this.change(entity, userId, (state) => {
      if (rights.length === 0 && !state.current) throw membershipNotFound(entity, userId);
      const before = onKind(entity.kind, state.current ?? []);
      const after = onKind(entity.kind, rights);
      const added = [...after].filter((r) => !before.has(r));
      const removed = [...before].filter((r) => !after.has(r));
      assertGrantable(entity, added, ctx.caller);
      // Removing a collaborator altogether takes no rights of the caller beyond managing collaborators (TTS).
      if (rights.length > 0) assertGrantable(entity, removed, ctx.caller);
      if (removed.includes(rules.all)) assertOtherHoldsAll(entity, userId, state);
      return rights;
    });
    this.changed(entity, userId, rights, previous, ctx);
    return {};
  }

  async delete(entity: ManagedRef, ids: OrganizationOrUserIdentifiers | undefined, ctx: RpcContext): Promise<Record<string, never>> {
    const userId = memberUserId(ids, 'collaborator_ids');
    const previous = await this.change(entity, userId, (state) => {
      if (!state.current) throw membershipNotFound(entity, userId);
      if (state.contacts.includes(userId)) throw ErrCollaboratorIsContact.with({ collaborator_id: userId });
      if (onKind(entity.kind, state.current).has(RULES[entity.kind].all)) assertOtherHoldsAll(entity, userId, state);
      return [];
    });
    this.changed(entity, userId, [], previous, ctx);
    return {};
  }

  /** Runs the store's change, turning a missing entity or user into its not-found error; answers the rights held before. */
  private async change(entity: ManagedRef, userId: string, decide: (state: CollaboratorState) => Right[]): Promise<Right[] | undefined> {
    const result = await this.store.change(entity, userId, decide, nowTimestamp());
    switch (result.outcome) {
      case 'entity_not_found':
        throw notFound(entity);
      case 'user_not_found':
        throw ErrUserNotFound.with({ user_id: userId });
      case 'changed':
        return result.previous;
    }
  }

  private changed(entity: ManagedRef, userId: string, rights: Right[], previous: Right[] | undefined, ctx: RpcContext): void {
    this.invalidator.invalidate({ entity: { kind: entity.kind, id: entity.id } });
    const identifiers = [entityIdentifiers(entity), entityIdentifiers({ kind: 'user', id: userId })];
    const events = RULES[entity.kind].events;
    if (rights.length > 0) {
      this.logger.log(`set collaborator ${userId} of ${entity.kind} ${entity.id}: ${rights.join(', ')}`);
      this.events.publish(events.update, identifiers, { ctx, data: toMessage(userId, rights) });
    } else {
      this.logger.log(`removed collaborator ${userId} of ${entity.kind} ${entity.id} (held ${(previous ?? []).join(', ')})`);
      this.events.publish(events.delete, identifiers, { ctx });
    }
  }

  private async mustExist(entity: ManagedRef): Promise<void> {
    if (!(await this.directory.exists(entity))) throw notFound(entity);
  }
}

function toMessage(userId: string, rights: readonly Right[] | undefined): CollaboratorJson {
  const out: CollaboratorJson = { ids: { user_ids: { user_id: userId } } };
  if (rights && rights.length > 0) out.rights = [...rights];
  return out;
}

/** The user a request names as collaborator: organizations are refused (they do not exist here yet). */
function memberUserId(ids: OrganizationOrUserIdentifiers | undefined, field: string): string {
  if (ids?.organization_ids) throw ErrOrganizationsUnsupported.with();
  const userId = ids?.user_ids?.user_id;
  if (!userId) throw ErrValidation.with({ field, name: 'OrganizationOrUserIdentifiersValidationError', reason: 'value is required' });
  return userId;
}

/** The rights as stored: each of the entity's kind (or `RIGHT_ALL`), each once, sorted. */
function validRights(kind: ManagedKind, rights: readonly string[]): Right[] {
  const ofKind = new Set<string>(rightsOfKind(kind));
  const foreign = rights.filter((r) => r !== 'RIGHT_ALL' && !ofKind.has(r));
  if (foreign.length > 0) {
    throw ErrValidation.with(
      { field: 'collaborator', name: `Set${capitalized(kind)}CollaboratorRequestValidationError`, reason: 'embedded message failed validation' },
      ErrValidation.with({
        field: 'rights',
        name: 'CollaboratorValidationError',
        reason: `rights must be ${kind} rights or RIGHT_ALL, not ${foreign.join(', ')}`,
      }),
    );
  }
  return sortRights(new Set(rights as Right[]));
}

/** What rights mean on an entity of the kind: implied, restricted to the kind (`RIGHT_ALL` there is `<KIND>_ALL` and all it implies). */
function onKind(kind: ManagedKind, rights: readonly Right[]): Set<Right> {
  const ofKind = new Set(rightsOfKind(kind));
  return new Set([...impliedRights(rights)].filter((r) => ofKind.has(r)));
}

/** TTS: the entity keeps a collaborator (other than `userId`) with `<KIND>_ALL`. */
function assertOtherHoldsAll(entity: ManagedRef, userId: string, state: CollaboratorState): void {
  const all = RULES[entity.kind].all;
  const other = state.collaborators.some((c: Collaborator) => c.user_id !== userId && onKind(entity.kind, c.rights).has(all));
  if (!other) throw RULES[entity.kind].needsCollaborator.with();
}

/** The caller holds `right` on the entity (rights resolved for it by Authorize, or universal). */
function holds(caller: CallerIdentity | undefined, entity: ManagedRef, right: Right): boolean {
  if (caller?.universal) return true;
  return caller?.entity?.kind === entity.kind && caller.entity.id === entity.id && caller.rights.includes(right);
}

function notFound(entity: ManagedRef) {
  return RULES[entity.kind].notFound.with({ [`${entity.kind}_id`]: entity.id });
}

function membershipNotFound(entity: ManagedRef, userId: string) {
  return ErrMembershipNotFound.with({ account_type: 'user', account_id: userId, entity_type: entity.kind, entity_id: entity.id });
}

function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
