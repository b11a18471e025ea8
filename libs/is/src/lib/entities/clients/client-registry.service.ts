import { Inject, Injectable } from '@nestjs/common';
import { type Client, type CreateClientRequest, hasAnyField, IS_EVENTS, Right, type RpcContext } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { hashSecret } from '@lorawan/crypto';
import { AccessInvalidator } from '../../access-invalidator';
import { ErrClientNotFound, ErrUpdateAdminField } from '../../errors';
import { IDENTITY_DIRECTORY, type IdentityDirectory } from '../../identity.contracts';
import { COLLABORATOR_STORE, type Collaborator, type CollaboratorStore } from '../collaborators/collaborator.model';
import { isAdminCaller } from '../common/caller';
import { withoutZeroValues } from '../common/document';
import { describedFields } from '../registry/entity.mapper';
import { collaboratedKind, type PickedFields, type StoredContacts } from '../registry/entity-kind';
import { CollaboratedEntityRegistry, type UpdatePlan } from '../registry/entity-registry.service';
import { USER_STORE, type UserStore } from '../users/user.model';
import { CLIENT_STORE, type ClientStore, type IsClient } from './client.model';
import { generateClientSecret } from './client-secret';

/** OAuth clients (TTS `pkg/identityserver/client_registry.go`). */
export const CLIENT_KIND = collaboratedKind<'client', IsClient, Client>({
  kind: 'client',
  registry: 'ClientRegistry',
  events: IS_EVENTS.client,
  listRight: Right.RIGHT_USER_CLIENTS_LIST,
  infoRight: Right.RIGHT_CLIENT_INFO,
  pick: pickClientFields,
  notFound: (client_id) => ErrClientNotFound.with({ client_id }),
});

/** Fields only admins set (TTS `updateClient`); a client a non-admin registers gets the defaults below. */
const ADMIN_FIELDS = ['state', 'state_description', 'skip_authorization', 'endorsed', 'grants'];
const REQUESTED = { state: 'STATE_REQUESTED', state_description: 'admin approval required' } as const;

/**
 * The ClientRegistry: OAuth clients and their first collaborator. The secret is hashed before it
 * is stored and returned only by Create; Get and List can not select it, events never carry it.
 * A client has no API keys. The OAuth flows that would use a client (authorize, token) are not
 * served yet.
 */
@Injectable()
export class ClientRegistryService extends CollaboratedEntityRegistry<'client', IsClient, Client, ClientStore> {
  constructor(
    @Inject(CLIENT_STORE) store: ClientStore,
    @Inject(USER_STORE) users: UserStore,
    @Inject(COLLABORATOR_STORE) collaborators: CollaboratorStore,
    @Inject(IDENTITY_DIRECTORY) directory: IdentityDirectory,
    invalidator: AccessInvalidator,
    events: EventPublisher,
  ) {
    super(CLIENT_KIND, store, { users, collaborators, directory, invalidator, events });
  }

  /**
   * Stores the client with the collaborator holding `RIGHT_ALL` (TTS), its secret (the request's, or
   * a generated one) as a hash. A client a non-admin registers awaits an admin's approval and can
   * neither skip authorization nor be endorsed. The answer is the one place the secret appears.
   */
  override async create(req: CreateClientRequest, ctx: RpcContext): Promise<IsClient & { secret: string }> {
    const secret = req.client.secret || generateClientSecret();
    return { ...(await super.create({ ...req, client: { ...req.client, secret } }, ctx)), secret };
  }

  protected override initial(
    client: PickedFields<IsClient> & Pick<IsClient, 'created_at' | 'updated_at'>,
    contacts: StoredContacts,
    ctx: RpcContext,
  ): IsClient {
    const byAdmin = isAdminCaller(ctx.caller);
    return withoutZeroValues({ ...client, ...(byAdmin ? {} : { ...REQUESTED, skip_authorization: undefined, endorsed: undefined }), ...contacts });
  }

  /** `request.secret`: the one `create` set. */
  protected async insert(client: IsClient, collaborator: Collaborator, request: Client) {
    if (!request.secret) throw new Error(`client ${client.ids.client_id}: no secret to store`);
    return this.store.create(client, await hashSecret(request.secret), collaborator);
  }

  protected replace(client: IsClient, expectedUpdatedAt: string) {
    return this.store.replace(client, expectedUpdatedAt);
  }

  /**
   * State, endorsement, grants and skipping authorization only for admins (a new state without a
   * description clears the description). `secret` sets a new secret, stored hashed and not
   * returned (empty: no secret).
   */
  protected override async planUpdate(client: Client, effective: string[], ctx: RpcContext): Promise<UpdatePlan<IsClient>> {
    let paths = effective;
    if (!isAdminCaller(ctx.caller)) {
      const field = paths.find((p) => ADMIN_FIELDS.includes(p));
      if (field) throw ErrUpdateAdminField.with({ field });
    }
    if (hasAnyField(paths, 'state') && !hasAnyField(paths, 'state_description')) paths = [...paths, 'state_description'];
    const secretHash = paths.includes('secret') ? (client.secret ? await hashSecret(client.secret) : null) : undefined;
    return { paths: paths.filter((p) => p !== 'secret'), save: (next, expected) => this.store.replace(next, expected, secretHash) };
  }
}

/** The fields of a request's Client the IS stores, except contacts (which depend on the operation) and the secret (hashed apart). */
export function pickClientFields(client: Client): Omit<IsClient, 'created_at' | 'updated_at' | 'administrative_contact' | 'technical_contact'> {
  return withoutZeroValues({
    ids: { client_id: client.ids.client_id },
    ...describedFields(client),
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
