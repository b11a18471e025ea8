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
  rightsHeldBy,
  type RpcContext,
  sortRights,
} from '@lorawan/api';
import { EventPublisher, rightsErrors, WithTotal } from '@lorawan/component';
import { type ErrorDefinition, ErrUnauthenticated, ErrValidation } from '@lorawan/errors';
import { AccessInvalidator } from '../../access-invalidator';
import { assertGrantable } from '../../access/grant-policy';
import { membershipAccount, RightsResolver } from '../../access/rights-resolver';
import { ErrApplicationNotFound, ErrClientNotFound, ErrGatewayNotFound, ErrNestedOrganizations, ErrOrganizationNotFound, ErrUserNotFound } from '../../errors';
import { IDENTITY_DIRECTORY, type IdentityDirectory } from '../../identity.contracts';
import type { AccountRef } from '../common/accounts';
import { accountContact, type Contact, collaboratorAccount } from '../common/contacts';
import {
  ErrApplicationNeedsCollaborator,
  ErrClientNeedsCollaborator,
  ErrCollaboratorIsContact,
  ErrGatewayNeedsCollaborator,
  ErrMembershipNotFound,
  ErrOrganizationNeedsCollaborator,
} from './collaborator-errors';
import {
  type CollaboratedKind,
  type CollaboratedRef,
  type Collaborator,
  COLLABORATOR_STORE,
  type CollaboratorOrderField,
  type CollaboratorState,
  type CollaboratorStore,
} from './collaborator.model';
import { assertConsent, CONSENT_RIGHT, type Consenter } from './organization-consent';

/** The kinds whose collaborators the `<Entity>Access` collaborator RPCs manage here (an organization's: its members). */
export type ManagedKind = CollaboratedKind;
export type ManagedRef = CollaboratedRef;

type CollaboratorEvents = { update: (typeof IS_EVENTS)['applicationCollaborator']['update']; delete: (typeof IS_EVENTS)['applicationCollaborator']['delete'] };

/** What differs between those kinds. */
interface KindRules {
  notFound: ErrorDefinition;
  needsCollaborator: ErrorDefinition;
  /** The right one collaborator must always keep (TTS: "at least one collaborator with all rights"). */
  all: Right;
  /** The right managing collaborators; without it, List shows identifiers only (TTS `PublicSafe`). */
  manage: Right;
  events: CollaboratorEvents;
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
  client: {
    notFound: ErrClientNotFound,
    needsCollaborator: ErrClientNeedsCollaborator,
    all: 'RIGHT_CLIENT_ALL',
    manage: 'RIGHT_CLIENT_SETTINGS_COLLABORATORS',
    events: IS_EVENTS.clientCollaborator,
  },
  organization: {
    notFound: ErrOrganizationNotFound,
    needsCollaborator: ErrOrganizationNeedsCollaborator,
    all: 'RIGHT_ORGANIZATION_ALL',
    manage: 'RIGHT_ORGANIZATION_SETTINGS_MEMBERS',
    events: IS_EVENTS.organizationCollaborator,
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
  ids: Contact;
  rights?: Right[];
}

/**
 * Collaborators of applications, gateways and clients, and members of organizations (TTS
 * `application_access.go`, `gateway_access.go`, `client_access.go`, `organization_access.go`). The
 * RPC server has checked the caller's rights on the entity (`<KIND>_SETTINGS_COLLABORATORS`, an
 * organization's `SETTINGS_MEMBERS`, for Get, Set, Delete; some right for List); this service
 * applies the rules of membership:
 *
 * - the collaborator is an existing user or organization; an organization's members are users
 *   (`nested_organizations`);
 * - rights are those the entity's kind holds (an organization's include the rights on the
 *   entities it collaborates on) or `RIGHT_ALL`, and the caller holds every right it adds, and
 *   every right it takes away unless it removes the collaborator (TTS);
 * - one collaborator always keeps `<KIND>_ALL`, and a contact cannot be deleted (TTS);
 * - an organization becomes a collaborator of an application, gateway or client only with the
 *   consent of the caller's `RIGHT_ORGANIZATION_ADD_AS_COLLABORATOR` on it, and who holds that
 *   right may also take it off, without any right on the entity (the RPC table leaves that Delete
 *   to this service: `orEntityByHandler`).
 *
 * The rules are decided on the state read in the transaction that writes (the caller's
 * membership of an organization named included), so concurrent changes cannot together break
 * them. A change takes effect at once: the gateways drop the rights they cached for the entity
 * and, for an organization's member, for the user (whose rights through the organization changed
 * everywhere). Set and Delete publish `<kind>.collaborator.update|delete`.
 */
@Injectable()
export class CollaboratorService {
  private readonly logger = new Logger('Collaborators');

  constructor(
    @Inject(COLLABORATOR_STORE) private readonly store: CollaboratorStore,
    @Inject(IDENTITY_DIRECTORY) private readonly directory: IdentityDirectory,
    private readonly invalidator: AccessInvalidator,
    private readonly events: EventPublisher,
    private readonly rights: RightsResolver,
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
    const out = collaborators.map((c) => toMessage(c.ids, withRights ? c.rights : undefined));
    return new WithTotal(out.length > 0 ? { collaborators: out } : {}, total);
  }

  async get(entity: ManagedRef, ids: OrganizationOrUserIdentifiers | undefined): Promise<CollaboratorJson> {
    const account = collaboratorAccount(ids);
    await this.mustExist(entity);
    const rights = await this.store.rightsOf(account.id, entity);
    if (rights.length === 0) throw membershipNotFound(entity, account);
    return toMessage(account, rights);
  }

  /** Sets the collaborator's rights; no rights removes it (TTS; DeleteCollaborator is the explicit way). */
  async set(entity: ManagedRef, collaborator: CollaboratorMessage, ctx: RpcContext): Promise<Record<string, never>> {
    const account = memberAccount(entity, collaborator.ids, 'collaborator.ids');
    const rights = validRights(entity.kind, collaborator.rights ?? []);
    const rules = RULES[entity.kind];
    const consenter = await this.consenter(entity, account, ctx);
    const previous = await this.change(
      entity,
      account,
      (state) => {
        if (rights.length === 0 && !state.current) throw membershipNotFound(entity, account);
        // An organization joins with its consent; once it collaborates, its rights are the entity's business.
        if (consenter && !state.current) assertConsent(consenter, account, state.actorGrant);
        const before = onKind(entity.kind, state.current ?? []);
        const after = onKind(entity.kind, rights);
        const added = [...after].filter((r) => !before.has(r));
        const removed = [...before].filter((r) => !after.has(r));
        assertGrantable(entity, added, ctx.caller);
        // Removing a collaborator altogether takes no rights of the caller beyond managing collaborators (TTS).
        if (rights.length > 0) assertGrantable(entity, removed, ctx.caller);
        if (removed.includes(rules.all)) assertOtherHoldsAll(entity, account, state);
        return rights;
      },
      consenter?.actor,
    );
    this.changed(entity, account, rights, previous, ctx);
    return {};
  }

  async delete(entity: ManagedRef, ids: OrganizationOrUserIdentifiers | undefined, ctx: RpcContext): Promise<Record<string, never>> {
    const account = memberAccount(entity, ids, 'collaborator_ids');
    const consenter = await this.consenter(entity, account, ctx);
    const byConsent = consenter !== undefined && (await this.deletesByConsent(entity, account, consenter));
    const previous = await this.change(
      entity,
      account,
      (state) => {
        if (!state.current) throw membershipNotFound(entity, account);
        if (byConsent) assertConsent(consenter, account, state.actorGrant);
        if (state.contacts.includes(account.id)) throw ErrCollaboratorIsContact.with({ collaborator_id: account.id });
        if (onKind(entity.kind, state.current).has(RULES[entity.kind].all)) assertOtherHoldsAll(entity, account, state);
        return [];
      },
      byConsent ? consenter.actor : undefined,
    );
    this.changed(entity, account, [], previous, ctx);
    return {};
  }

  /**
   * The caller of a change naming an organization as collaborator of an application, gateway or
   * client, for the consent rule; undefined when the rule does not apply (a user; an organization's
   * members, who are users; internal callers, who hold every right).
   */
  private async consenter(entity: ManagedRef, account: AccountRef, ctx: RpcContext): Promise<Consenter | undefined> {
    if (account.kind !== 'organization' || entity.kind === 'organization') return undefined;
    const caller = ctx.caller;
    if (!caller) throw ErrUnauthenticated.with();
    if (caller.universal) return undefined;
    const credential = await this.rights.credentialOf(caller);
    if (!credential) throw rightsErrors(entity.kind).none.with({ uid: entity.id });
    return { credential, actor: membershipAccount(credential, account) };
  }

  /**
   * A Delete naming an organization reaches this service unchecked (`orEntityByHandler`): the
   * caller manages the entity's collaborators (false), or holds the consent right on the
   * organization (true: checked again in the transaction); else the entity's rights error, as
   * the guard would have answered.
   */
  private async deletesByConsent(entity: ManagedRef, account: AccountRef, consenter: Consenter): Promise<boolean> {
    const manage = RULES[entity.kind].manage;
    const onEntity = await this.rights.rightsOn(consenter.credential, entity);
    if (onEntity.includes(manage)) return false;
    if ((await this.rights.rightsOn(consenter.credential, account)).includes(CONSENT_RIGHT)) return true;
    const errors = rightsErrors(entity.kind);
    throw onEntity.length === 0 ? errors.none.with({ uid: entity.id }) : errors.insufficient.with({ uid: entity.id, missing: [manage] });
  }

  /** Runs the store's change, turning a missing entity or account into its not-found error; answers the rights held before. */
  private async change(
    entity: ManagedRef,
    account: AccountRef,
    decide: (state: CollaboratorState) => Right[],
    actor: string | undefined,
  ): Promise<Right[] | undefined> {
    const result = await this.store.change(entity, account, decide, nowTimestamp(), { actor });
    switch (result.outcome) {
      case 'entity_not_found':
        throw notFound(entity);
      case 'account_not_found':
        throw account.kind === 'user' ? ErrUserNotFound.with({ user_id: account.id }) : ErrOrganizationNotFound.with({ organization_id: account.id });
      case 'changed':
        return result.previous;
    }
  }

  private changed(entity: ManagedRef, account: AccountRef, rights: Right[], previous: Right[] | undefined, ctx: RpcContext): void {
    this.invalidator.invalidate({ entity: { kind: entity.kind, id: entity.id } });
    // A member's rights through the organization changed on every entity the organization reaches.
    if (entity.kind === 'organization') this.invalidator.invalidate({ entity: account });
    const identifiers = [entityIdentifiers(entity), entityIdentifiers(account)];
    const events = RULES[entity.kind].events;
    const who = `${account.kind} ${account.id}`;
    if (rights.length > 0) {
      this.logger.log(`set collaborator ${who} of ${entity.kind} ${entity.id}: ${rights.join(', ')}`);
      this.events.publish(events.update, identifiers, { ctx, data: toMessage(account, rights) });
    } else {
      this.logger.log(`removed collaborator ${who} of ${entity.kind} ${entity.id} (held ${(previous ?? []).join(', ')})`);
      this.events.publish(events.delete, identifiers, { ctx });
    }
  }

  private async mustExist(entity: ManagedRef): Promise<void> {
    if (!(await this.directory.exists(entity))) throw notFound(entity);
  }
}

function toMessage(account: AccountRef, rights: readonly Right[] | undefined): CollaboratorJson {
  const out: CollaboratorJson = { ids: accountContact(account) };
  if (rights && rights.length > 0) out.rights = [...rights];
  return out;
}

/** The account a Set or Delete names: a user or an organization, but only users are members of organizations (TTS). */
function memberAccount(entity: ManagedRef, ids: OrganizationOrUserIdentifiers | undefined, field: string): AccountRef {
  const account = collaboratorAccount(ids, field);
  if (entity.kind === 'organization' && account.kind === 'organization') throw ErrNestedOrganizations.with();
  return account;
}

/** The rights as stored: each one the entity's kind holds (or `RIGHT_ALL`), each once, sorted. */
function validRights(kind: ManagedKind, rights: readonly string[]): Right[] {
  const held = new Set<string>(rightsHeldBy(kind));
  const foreign = rights.filter((r) => r !== 'RIGHT_ALL' && !held.has(r));
  if (foreign.length > 0) {
    const what = kind === 'organization' ? 'organization, application, gateway or client' : kind;
    throw ErrValidation.with(
      { field: 'collaborator', name: `Set${capitalized(kind)}CollaboratorRequestValidationError`, reason: 'embedded message failed validation' },
      ErrValidation.with({
        field: 'rights',
        name: 'CollaboratorValidationError',
        reason: `rights must be ${what} rights or RIGHT_ALL, not ${foreign.join(', ')}`,
      }),
    );
  }
  return sortRights(new Set(rights as Right[]));
}

/** What rights mean on an entity of the kind: implied, restricted to what the kind holds (`RIGHT_ALL` there is all of that). */
function onKind(kind: ManagedKind, rights: readonly Right[]): Set<Right> {
  const held = new Set(rightsHeldBy(kind));
  return new Set([...impliedRights(rights)].filter((r) => held.has(r)));
}

/** TTS: the entity keeps a collaborator (other than `account`) with `<KIND>_ALL`. */
function assertOtherHoldsAll(entity: ManagedRef, account: AccountRef, state: CollaboratorState): void {
  const all = RULES[entity.kind].all;
  const other = state.collaborators.some((c: Collaborator) => c.ids.id !== account.id && onKind(entity.kind, c.rights).has(all));
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

function membershipNotFound(entity: ManagedRef, account: AccountRef) {
  return ErrMembershipNotFound.with({ account_type: account.kind, account_id: account.id, entity_type: entity.kind, entity_id: entity.id });
}

function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
