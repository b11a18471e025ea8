import { Inject, Injectable } from '@nestjs/common';
import {
  ALLOWED_PATHS,
  applyFields,
  type CallerIdentity,
  checkFieldMaskPaths,
  type CreateOrganizationRequest,
  entityIdentifiers,
  type GetOrganizationRequest,
  IS_EVENTS,
  type ListOrganizationsRequest,
  nowTimestamp,
  type Organization,
  type OrganizationIdentifiers,
  plainJson,
  Right,
  type RpcContext,
  selectFields,
  type UpdateOrganizationRequest,
} from '@lorawan/api';
import { EventPublisher, WithTotal } from '@lorawan/component';
import { AccessInvalidator } from '../../access-invalidator';
import {
  ErrAlreadyExists,
  ErrEntityConcurrentUpdate,
  ErrIdTaken,
  ErrNestedOrganizations,
  ErrOrganizationHasEntities,
  ErrOrganizationNotFound,
  ErrUserNotFound,
} from '../../errors';
import { API_KEY_CLEANUP, type ApiKeyCleanup } from '../../identity.contracts';
import { COLLABORATOR_STORE, type CollaboratorStore } from '../collaborators/collaborator.model';
import { callerUserId } from '../common/caller';
import { collaboratorAccount, creationContacts } from '../common/contacts';
import { withoutZeroValues } from '../common/document';
import { listQuery } from '../common/entity-list';
import { DEFAULT_PATHS, listScope, visibleEntries } from '../common/list-access';
import { updateOptimistically } from '../common/optimistic';
import { requireContactsAreCollaborators } from '../common/update-contacts';
import { effectiveUpdatePaths, type UpdatePathRules } from '../common/update-paths';
import { USER_STORE, type UserStore } from '../users/user.model';
import { type IsOrganization, ORGANIZATION_STORE, type OrganizationStore } from './organization.model';

const UPDATE_RULES: UpdatePathRules = {
  readOnly: ['ids', 'ids.organization_id'],
  ignored: ['created_at', 'updated_at', 'deleted_at'],
  whole: ['administrative_contact', 'technical_contact'],
};

type Empty = Record<string, never>;

const EVENTS = IS_EVENTS.organization;
const idsOf = (id: string) => entityIdentifiers({ kind: 'organization', id });

/**
 * The OrganizationRegistry (TTS `pkg/identityserver/organization_registry.go`): organizations and
 * their first member. Organizations do not nest: a user creates them, and they are listed for a
 * user. Each change publishes its `organization.*` event once it succeeded.
 */
@Injectable()
export class OrganizationRegistryService {
  constructor(
    @Inject(ORGANIZATION_STORE) private readonly store: OrganizationStore,
    @Inject(USER_STORE) private readonly users: UserStore,
    @Inject(COLLABORATOR_STORE) private readonly collaborators: CollaboratorStore,
    @Inject(API_KEY_CLEANUP) private readonly apiKeys: ApiKeyCleanup,
    private readonly invalidator: AccessInvalidator,
    private readonly events: EventPublisher,
  ) {}

  /**
   * Stores the organization with the user as a member holding `RIGHT_ALL`; contacts default to it.
   * The ID must be free among users and organizations (`id_taken`).
   */
  async create({ organization, collaborator }: CreateOrganizationRequest, ctx: RpcContext): Promise<IsOrganization> {
    const account = collaboratorAccount(collaborator);
    if (account.kind === 'organization') throw ErrNestedOrganizations.with();
    const contacts = creationContacts(organization, account);
    if (!(await this.users.get(account.id))) throw ErrUserNotFound.with({ user_id: account.id });
    const now = nowTimestamp();
    const { ids, ...fields } = pickOrganizationFields(organization);
    const org: IsOrganization = { ids, created_at: now, updated_at: now, ...fields, ...contacts };
    const result = await this.store.create(org, { ids: account, rights: [Right.RIGHT_ALL] });
    if (!result.ok) throw ErrIdTaken.with({}, ErrAlreadyExists.with());
    this.events.publish(EVENTS.create, idsOf(ids.organization_id), { ctx });
    return org;
  }

  async get({ organization_ids, field_mask }: GetOrganizationRequest): Promise<Partial<IsOrganization>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['OrganizationRegistry.Get']);
    return selectFields(await this.mustGet(organization_ids.organization_id), [...DEFAULT_PATHS, ...paths]);
  }

  /**
   * The organizations a user is a member of (the request's, else the caller's; every one for an
   * admin without a collaborator). An organization's own key lists none: organizations do not nest.
   */
  async list(req: ListOrganizationsRequest, caller: CallerIdentity | undefined): Promise<WithTotal<{ organizations?: Partial<IsOrganization>[] }>> {
    const paths = req.field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['OrganizationRegistry.List']);
    if (req.collaborator?.organization_ids || (!req.collaborator && caller?.owner?.kind === 'organization')) throw ErrNestedOrganizations.with();
    const scope = await listScope(req.collaborator, caller, Right.RIGHT_USER_ORGANIZATIONS_LIST, this.users);
    if (!scope) return new WithTotal({}, 0);
    const { organizations, total } = await this.store.list(listQuery(req, 'organization_id', scope.collaborator));
    const idOf = (org: IsOrganization) => org.ids.organization_id;
    const userId = callerUserId(caller);
    const held = userId ? await this.collaborators.rightsOn(userId, 'organization', organizations.map(idOf)) : new Map();
    const entries = visibleEntries(organizations, idOf, paths, Right.RIGHT_ORGANIZATION_INFO, caller, held);
    return new WithTotal(entries.length > 0 ? { organizations: entries } : {}, total);
  }

  /** Applies the masked paths; contacts must be members; identifiers are read-only. The event's data: the request's paths. */
  async update({ organization, field_mask }: UpdateOrganizationRequest, ctx: RpcContext): Promise<Partial<IsOrganization>> {
    const requested = field_mask?.paths ?? [];
    checkFieldMaskPaths(requested, ALLOWED_PATHS['OrganizationRegistry.Update']);
    const paths = effectiveUpdatePaths(requested, UPDATE_RULES);
    const id = organization.ids.organization_id;
    const changes = {
      ...pickOrganizationFields(organization),
      ...(await requireContactsAreCollaborators(this.collaborators, { kind: 'organization', id }, organization, paths)),
    };
    const updated = await updateOptimistically(
      () => this.mustGet(id),
      (current) => ({ ...applyFields(current, changes, paths), updated_at: nowTimestamp() }),
      (next, expected) => this.store.replace(next, expected),
      () => ErrEntityConcurrentUpdate.with({ entity_type: 'organization', entity_id: id }),
    );
    this.events.publish(EVENTS.update, idsOf(id), { ctx, data: [...requested] });
    return selectFields(updated, [...DEFAULT_PATHS, ...paths]);
  }

  /** Soft delete: the ID stays taken; refused while the organization collaborates on live applications, gateways or clients. */
  async delete({ organization_id }: OrganizationIdentifiers, ctx: RpcContext): Promise<Empty> {
    const result = await this.store.softDelete(organization_id, nowTimestamp());
    if (!result.ok) {
      if (result.reason === 'not_found') throw ErrOrganizationNotFound.with({ organization_id });
      throw ErrOrganizationHasEntities.with({ count: result.count });
    }
    this.invalidate(organization_id);
    this.events.publish(EVENTS.delete, idsOf(organization_id), { ctx });
    return {};
  }

  async restore({ organization_id }: OrganizationIdentifiers, ctx: RpcContext): Promise<Empty> {
    if (!(await this.store.restore(organization_id))) throw ErrOrganizationNotFound.with({ organization_id });
    this.invalidate(organization_id);
    this.events.publish(EVENTS.restore, idsOf(organization_id), { ctx });
    return {};
  }

  /**
   * Removes the organization (deleted or not) with its members, its collaborations and its API
   * keys, freeing its ID for a user or an organization. The keys go first: a key outliving its
   * organization would hold rights on a new account of that ID.
   */
  async purge({ organization_id }: OrganizationIdentifiers, ctx: RpcContext): Promise<Empty> {
    if (!(await this.store.get(organization_id, 'any'))) throw ErrOrganizationNotFound.with({ organization_id });
    await this.apiKeys.deleteKeysOf({ kind: 'organization', id: organization_id });
    if (!(await this.store.purge(organization_id))) throw ErrOrganizationNotFound.with({ organization_id });
    this.invalidate(organization_id);
    this.events.publish(EVENTS.purge, idsOf(organization_id), { ctx });
    return {};
  }

  /**
   * Drops the access cached for the organization, and everything else cached: its members reach
   * applications, gateways and clients through it, so their rights on those changed too.
   */
  private invalidate(organizationId: string): void {
    this.invalidator.invalidate({ entity: { kind: 'organization', id: organizationId } });
    this.invalidator.invalidate({ all: true });
  }

  private async mustGet(organizationId: string): Promise<IsOrganization> {
    const org = await this.store.get(organizationId);
    if (!org) throw ErrOrganizationNotFound.with({ organization_id: organizationId });
    return org;
  }
}

/** The fields of a request's Organization the IS stores, except contacts (which depend on the operation). */
export function pickOrganizationFields(org: Organization): Omit<IsOrganization, 'created_at' | 'updated_at' | 'administrative_contact' | 'technical_contact'> {
  return withoutZeroValues({
    ids: { organization_id: org.ids.organization_id },
    name: org.name,
    description: org.description,
    attributes: org.attributes && Object.keys(org.attributes).length > 0 ? plainJson(org.attributes) : undefined,
    fanout_notifications: org.fanout_notifications,
  });
}
