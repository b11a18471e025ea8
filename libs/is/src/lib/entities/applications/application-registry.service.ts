import { Inject, Injectable } from '@nestjs/common';
import {
  ALLOWED_PATHS,
  type Application,
  applyFields,
  type ApplicationIdentifiers,
  type CallerIdentity,
  checkFieldMaskPaths,
  type CreateApplicationRequest,
  entityIdentifiers,
  type GetApplicationRequest,
  IS_EVENTS,
  type ListApplicationsRequest,
  nowTimestamp,
  Right,
  type RpcContext,
  selectFields,
  type UpdateApplicationRequest,
  plainJson,
} from '@lorawan/api';
import { EventPublisher, WithTotal } from '@lorawan/component';
import { AccessInvalidator } from '../../access-invalidator';
import { ErrAlreadyExists, ErrApplicationHasDevices, ErrApplicationNotFound, ErrEntityConcurrentUpdate, ErrIdTaken } from '../../errors';
import { API_KEY_CLEANUP, type ApiKeyCleanup, IDENTITY_DIRECTORY, type IdentityDirectory } from '../../identity.contracts';
import { COLLABORATOR_STORE, type CollaboratorStore } from '../collaborators/collaborator.model';
import { callerAccountId } from '../common/caller';
import { mustExistAccount } from '../common/accounts';
import { collaboratorAccount, creationContacts } from '../common/contacts';
import { withoutZeroValues } from '../common/document';
import { listQuery } from '../common/entity-list';
import { DEFAULT_PATHS, listScope, visibleEntries } from '../common/list-access';
import { updateOptimistically } from '../common/optimistic';
import { requireContactsAreCollaborators } from '../common/update-contacts';
import { effectiveUpdatePaths, type UpdatePathRules } from '../common/update-paths';
import { USER_STORE, type UserStore } from '../users/user.model';
import { APPLICATION_STORE, type ApplicationStore, type IsApplication, type RemovalResult } from './application.model';

const UPDATE_RULES: UpdatePathRules = {
  readOnly: ['ids', 'ids.application_id'],
  ignored: ['created_at', 'updated_at', 'deleted_at'],
  whole: ['administrative_contact', 'technical_contact'],
};

type Empty = Record<string, never>;

const EVENTS = IS_EVENTS.application;
const idsOf = (id: string) => entityIdentifiers({ kind: 'application', id });

/**
 * The ApplicationRegistry (TTS `pkg/identityserver/application_registry.go`): applications and
 * their first collaborator. Each change publishes its `application.*` event once it succeeded.
 */
@Injectable()
export class ApplicationRegistryService {
  constructor(
    @Inject(APPLICATION_STORE) private readonly store: ApplicationStore,
    @Inject(USER_STORE) private readonly users: UserStore,
    @Inject(COLLABORATOR_STORE) private readonly collaborators: CollaboratorStore,
    @Inject(IDENTITY_DIRECTORY) private readonly directory: IdentityDirectory,
    @Inject(API_KEY_CLEANUP) private readonly apiKeys: ApiKeyCleanup,
    private readonly invalidator: AccessInvalidator,
    private readonly events: EventPublisher,
  ) {}

  /** Stores the application with the collaborator holding `RIGHT_ALL`; contacts default to the collaborator. */
  async create({ application, collaborator }: CreateApplicationRequest, ctx: RpcContext): Promise<IsApplication> {
    const account = collaboratorAccount(collaborator);
    const contacts = creationContacts(application, account);
    await mustExistAccount(this.directory, account);
    const now = nowTimestamp();
    const { ids, ...fields } = pickApplicationFields(application);
    const app: IsApplication = { ids, created_at: now, updated_at: now, ...fields, ...contacts };
    const result = await this.store.create(app, { ids: account, rights: [Right.RIGHT_ALL] });
    if (!result.ok) throw ErrIdTaken.with({}, ErrAlreadyExists.with());
    this.events.publish(EVENTS.create, idsOf(ids.application_id), { ctx });
    return app;
  }

  async get({ application_ids, field_mask }: GetApplicationRequest): Promise<Partial<IsApplication>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['ApplicationRegistry.Get']);
    return selectFields(await this.mustGet(application_ids.application_id), [...DEFAULT_PATHS, ...paths]);
  }

  async list(req: ListApplicationsRequest, caller: CallerIdentity | undefined): Promise<WithTotal<{ applications?: Partial<IsApplication>[] }>> {
    const paths = req.field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['ApplicationRegistry.List']);
    const scope = await listScope(req.collaborator, caller, Right.RIGHT_USER_APPLICATIONS_LIST, this.users);
    if (!scope) return new WithTotal({}, 0);
    const { applications, total } = await this.store.list(listQuery(req, 'application_id', scope.collaborator));
    const idOf = (app: IsApplication) => app.ids.application_id;
    const accountId = callerAccountId(caller);
    const held = accountId ? await this.collaborators.rightsOn(accountId, 'application', applications.map(idOf)) : new Map();
    const entries = visibleEntries(applications, idOf, paths, Right.RIGHT_APPLICATION_INFO, caller, held);
    return new WithTotal(entries.length > 0 ? { applications: entries } : {}, total);
  }

  /** Applies the masked paths; contacts must be collaborators; identifiers are read-only. The event's data: the request's paths. */
  async update({ application, field_mask }: UpdateApplicationRequest, ctx: RpcContext): Promise<Partial<IsApplication>> {
    const requested = field_mask?.paths ?? [];
    checkFieldMaskPaths(requested, ALLOWED_PATHS['ApplicationRegistry.Update']);
    const paths = effectiveUpdatePaths(requested, UPDATE_RULES);
    const id = application.ids.application_id;
    const changes = {
      ...pickApplicationFields(application),
      ...(await requireContactsAreCollaborators(this.collaborators, { kind: 'application', id }, application, paths)),
    };
    const updated = await updateOptimistically(
      () => this.mustGet(id),
      (current) => ({ ...applyFields(current, changes, paths), updated_at: nowTimestamp() }),
      (next, expected) => this.store.replace(next, expected),
      () => ErrEntityConcurrentUpdate.with({ entity_type: 'application', entity_id: id }),
    );
    this.events.publish(EVENTS.update, idsOf(id), { ctx, data: [...requested] });
    return selectFields(updated, [...DEFAULT_PATHS, ...paths]);
  }

  /** Soft delete: the ID stays taken; refused while the IS holds devices of the application. */
  async delete({ application_id }: ApplicationIdentifiers, ctx: RpcContext): Promise<Empty> {
    raiseRemovalError(application_id, await this.store.softDelete(application_id, nowTimestamp()));
    this.invalidator.invalidate({ entity: { kind: 'application', id: application_id } });
    this.events.publish(EVENTS.delete, idsOf(application_id), { ctx });
    return {};
  }

  async restore({ application_id }: ApplicationIdentifiers, ctx: RpcContext): Promise<Empty> {
    if (!(await this.store.restore(application_id))) throw ErrApplicationNotFound.with({ application_id });
    this.invalidator.invalidate({ entity: { kind: 'application', id: application_id } });
    this.events.publish(EVENTS.restore, idsOf(application_id), { ctx });
    return {};
  }

  /**
   * Removes the application (deleted or not) with its collaborators and API keys, freeing its ID.
   * The keys go first: a key outliving its application would hold rights on a new one of that ID.
   */
  async purge({ application_id }: ApplicationIdentifiers, ctx: RpcContext): Promise<Empty> {
    if (!(await this.store.get(application_id, 'any'))) throw ErrApplicationNotFound.with({ application_id });
    const count = await this.store.deviceCount(application_id);
    if (count > 0) throw ErrApplicationHasDevices.with({ count });
    await this.apiKeys.deleteKeysOf({ kind: 'application', id: application_id });
    raiseRemovalError(application_id, await this.store.purge(application_id));
    this.invalidator.invalidate({ entity: { kind: 'application', id: application_id } });
    this.events.publish(EVENTS.purge, idsOf(application_id), { ctx });
    return {};
  }

  private async mustGet(applicationId: string): Promise<IsApplication> {
    const app = await this.store.get(applicationId);
    if (!app) throw ErrApplicationNotFound.with({ application_id: applicationId });
    return app;
  }
}

function raiseRemovalError(applicationId: string, result: RemovalResult): void {
  if (result.ok) return;
  if (result.reason === 'not_found') throw ErrApplicationNotFound.with({ application_id: applicationId });
  throw ErrApplicationHasDevices.with({ count: result.count });
}

/** The fields of a request's Application the IS stores, except contacts (which depend on the operation). */
export function pickApplicationFields(app: Application): Omit<IsApplication, 'created_at' | 'updated_at' | 'administrative_contact' | 'technical_contact'> {
  return withoutZeroValues({
    ids: { application_id: app.ids.application_id },
    name: app.name,
    description: app.description,
    attributes: app.attributes && Object.keys(app.attributes).length > 0 ? plainJson(app.attributes) : undefined,
    network_server_address: app.network_server_address,
    application_server_address: app.application_server_address,
    join_server_address: app.join_server_address,
  });
}
