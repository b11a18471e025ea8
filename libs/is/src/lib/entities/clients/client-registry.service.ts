import { Inject, Injectable } from '@nestjs/common';
import {
  ALLOWED_PATHS,
  applyFields,
  type CallerIdentity,
  checkFieldMaskPaths,
  type Client,
  type ClientIdentifiers,
  type CreateClientRequest,
  entityIdentifiers,
  type GetClientRequest,
  hasAnyField,
  IS_EVENTS,
  type ListClientsRequest,
  nowTimestamp,
  plainJson,
  Right,
  type RpcContext,
  selectFields,
  type UpdateClientRequest,
} from '@lorawan/api';
import { EventPublisher, WithTotal } from '@lorawan/component';
import { hashSecret } from '@lorawan/crypto';
import { AccessInvalidator } from '../../access-invalidator';
import { ErrAlreadyExists, ErrClientNotFound, ErrEntityConcurrentUpdate, ErrIdTaken, ErrUpdateAdminField } from '../../errors';
import { COLLABORATOR_STORE, type CollaboratorStore } from '../collaborators/collaborator.model';
import { callerAccountId, isAdminCaller } from '../common/caller';
import { IDENTITY_DIRECTORY, type IdentityDirectory } from '../../identity.contracts';
import { mustExistAccount } from '../common/accounts';
import { collaboratorAccount, creationContacts } from '../common/contacts';
import { withoutZeroValues } from '../common/document';
import { listQuery } from '../common/entity-list';
import { DEFAULT_PATHS, listScope, visibleEntries } from '../common/list-access';
import { updateOptimistically } from '../common/optimistic';
import { requireContactsAreCollaborators } from '../common/update-contacts';
import { effectiveUpdatePaths, type UpdatePathRules } from '../common/update-paths';
import { USER_STORE, type UserStore } from '../users/user.model';
import { CLIENT_STORE, type ClientStore, type IsClient } from './client.model';
import { generateClientSecret } from './client-secret';

const UPDATE_RULES: UpdatePathRules = {
  readOnly: ['ids', 'ids.client_id'],
  ignored: ['created_at', 'updated_at', 'deleted_at'],
  whole: ['administrative_contact', 'technical_contact'],
};

/** Fields only admins set (TTS `updateClient`); a client a non-admin registers gets the defaults below. */
const ADMIN_FIELDS = ['state', 'state_description', 'skip_authorization', 'endorsed', 'grants'];
const REQUESTED = { state: 'STATE_REQUESTED', state_description: 'admin approval required' } as const;

type Empty = Record<string, never>;

const EVENTS = IS_EVENTS.client;
const idsOf = (id: string) => entityIdentifiers({ kind: 'client', id });

/**
 * The ClientRegistry (TTS `pkg/identityserver/client_registry.go`): OAuth clients and their first
 * collaborator. The secret is hashed before it is stored and returned only by Create; Get and List
 * can not select it, events never carry it. Each change publishes its `client.*` event once it
 * succeeded. The OAuth flows that would use a client (authorize, token) are not served yet.
 */
@Injectable()
export class ClientRegistryService {
  constructor(
    @Inject(CLIENT_STORE) private readonly store: ClientStore,
    @Inject(USER_STORE) private readonly users: UserStore,
    @Inject(COLLABORATOR_STORE) private readonly collaborators: CollaboratorStore,
    @Inject(IDENTITY_DIRECTORY) private readonly directory: IdentityDirectory,
    private readonly invalidator: AccessInvalidator,
    private readonly events: EventPublisher,
  ) {}

  /**
   * Stores the client with the collaborator holding `RIGHT_ALL` (TTS), its secret (the request's, or
   * a generated one) as a hash. A client a non-admin registers awaits an admin's approval and can
   * neither skip authorization nor be endorsed. The answer is the one place the secret appears.
   */
  async create({ client, collaborator }: CreateClientRequest, ctx: RpcContext): Promise<IsClient & { secret: string }> {
    const account = collaboratorAccount(collaborator);
    const contacts = creationContacts(client, account);
    await mustExistAccount(this.directory, account);
    const secret = client.secret || generateClientSecret();
    const now = nowTimestamp();
    const { ids, ...fields } = pickClientFields(client);
    const byAdmin = isAdminCaller(ctx.caller);
    const stored: IsClient = withoutZeroValues({
      ids,
      created_at: now,
      updated_at: now,
      ...fields,
      ...(byAdmin ? {} : { ...REQUESTED, skip_authorization: undefined, endorsed: undefined }),
      ...contacts,
    });
    const result = await this.store.create(stored, await hashSecret(secret), { ids: account, rights: [Right.RIGHT_ALL] });
    if (!result.ok) throw ErrIdTaken.with({}, ErrAlreadyExists.with());
    this.events.publish(EVENTS.create, idsOf(ids.client_id), { ctx });
    return { ...stored, secret };
  }

  async get({ client_ids, field_mask }: GetClientRequest): Promise<Partial<IsClient>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['ClientRegistry.Get']);
    return selectFields(await this.mustGet(client_ids.client_id), [...DEFAULT_PATHS, ...paths]);
  }

  async list(req: ListClientsRequest, caller: CallerIdentity | undefined): Promise<WithTotal<{ clients?: Partial<IsClient>[] }>> {
    const paths = req.field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['ClientRegistry.List']);
    const scope = await listScope(req.collaborator, caller, Right.RIGHT_USER_CLIENTS_LIST, this.users);
    if (!scope) return new WithTotal({}, 0);
    const { clients, total } = await this.store.list(listQuery(req, 'client_id', scope.collaborator));
    const idOf = (client: IsClient) => client.ids.client_id;
    const accountId = callerAccountId(caller);
    const held = accountId ? await this.collaborators.rightsOn(accountId, 'client', clients.map(idOf)) : new Map();
    const entries = visibleEntries(clients, idOf, paths, Right.RIGHT_CLIENT_INFO, caller, held);
    return new WithTotal(entries.length > 0 ? { clients: entries } : {}, total);
  }

  /**
   * Applies the masked paths; contacts must be collaborators; identifiers are read-only; state,
   * endorsement, grants and skipping authorization only for admins (a new state without a
   * description clears the description). `secret` sets a new secret, stored hashed and not
   * returned (empty: no secret). The event's data: the request's paths.
   */
  async update({ client, field_mask }: UpdateClientRequest, ctx: RpcContext): Promise<Partial<IsClient>> {
    const requested = field_mask?.paths ?? [];
    checkFieldMaskPaths(requested, ALLOWED_PATHS['ClientRegistry.Update']);
    let paths = effectiveUpdatePaths(requested, UPDATE_RULES);
    if (!isAdminCaller(ctx.caller)) {
      const field = paths.find((p) => ADMIN_FIELDS.includes(p));
      if (field) throw ErrUpdateAdminField.with({ field });
    }
    if (hasAnyField(paths, 'state') && !hasAnyField(paths, 'state_description')) paths = [...paths, 'state_description'];
    const secretHash = paths.includes('secret') ? (client.secret ? await hashSecret(client.secret) : null) : undefined;
    paths = paths.filter((p) => p !== 'secret');
    const id = client.ids.client_id;
    const changes = {
      ...pickClientFields(client),
      ...(await requireContactsAreCollaborators(this.collaborators, { kind: 'client', id }, client, paths)),
    };
    const updated = await updateOptimistically(
      () => this.mustGet(id),
      (current) => ({ ...applyFields(current, changes, paths), updated_at: nowTimestamp() }),
      (next, expected) => this.store.replace(next, expected, secretHash),
      () => ErrEntityConcurrentUpdate.with({ entity_type: 'client', entity_id: id }),
    );
    this.events.publish(EVENTS.update, idsOf(id), { ctx, data: [...requested] });
    return selectFields(updated, [...DEFAULT_PATHS, ...paths]);
  }

  /** Soft delete: the ID stays taken, the collaborators' rights lapse until a restore. */
  async delete({ client_id }: ClientIdentifiers, ctx: RpcContext): Promise<Empty> {
    if (!(await this.store.softDelete(client_id, nowTimestamp()))) throw ErrClientNotFound.with({ client_id });
    this.invalidator.invalidate({ entity: { kind: 'client', id: client_id } });
    this.events.publish(EVENTS.delete, idsOf(client_id), { ctx });
    return {};
  }

  async restore({ client_id }: ClientIdentifiers, ctx: RpcContext): Promise<Empty> {
    if (!(await this.store.restore(client_id))) throw ErrClientNotFound.with({ client_id });
    this.invalidator.invalidate({ entity: { kind: 'client', id: client_id } });
    this.events.publish(EVENTS.restore, idsOf(client_id), { ctx });
    return {};
  }

  /** Removes the client (deleted or not) with its collaborators, freeing its ID (admins only: RPC table). */
  async purge({ client_id }: ClientIdentifiers, ctx: RpcContext): Promise<Empty> {
    if (!(await this.store.purge(client_id))) throw ErrClientNotFound.with({ client_id });
    this.invalidator.invalidate({ entity: { kind: 'client', id: client_id } });
    this.events.publish(EVENTS.purge, idsOf(client_id), { ctx });
    return {};
  }

  private async mustGet(clientId: string): Promise<IsClient> {
    const client = await this.store.get(clientId);
    if (!client) throw ErrClientNotFound.with({ client_id: clientId });
    return client;
  }
}

/** The fields of a request's Client the IS stores, except contacts (which depend on the operation) and the secret (hashed apart). */
export function pickClientFields(client: Client): Omit<IsClient, 'created_at' | 'updated_at' | 'administrative_contact' | 'technical_contact'> {
  return withoutZeroValues({
    ids: { client_id: client.ids.client_id },
    name: client.name,
    description: client.description,
    attributes: client.attributes && Object.keys(client.attributes).length > 0 ? plainJson(client.attributes) : undefined,
    redirect_uris: client.redirect_uris ? [...client.redirect_uris] : undefined,
    logout_redirect_uris: client.logout_redirect_uris ? [...client.logout_redirect_uris] : undefined,
    state: client.state,
    state_description: client.state_description,
    skip_authorization: client.skip_authorization,
    endorsed: client.endorsed,
    grants: client.grants ? [...client.grants] : undefined,
    rights: client.rights ? [...client.rights] : undefined,
  });
}
