import { Inject, Injectable } from '@nestjs/common';
import {
  ALLOWED_PATHS,
  applyFields,
  type CallerIdentity,
  checkFieldMaskPaths,
  type CreateGatewayRequest,
  type EntityIdentifiersJson,
  type Gateway,
  type GatewayIdentifiers,
  type GetGatewayForEUIRequest,
  type GetGatewayIdentifiersForEUIRequest,
  type GetGatewayRequest,
  hasAnyField,
  IS_EVENTS,
  type ListGatewaysRequest,
  nowTimestamp,
  Right,
  type RpcContext,
  selectFields,
  type UpdateGatewayRequest,
  plainJson,
} from '@lorawan/api';
import { EventPublisher, WithTotal } from '@lorawan/component';
import { AccessInvalidator } from '../../access-invalidator';
import { ErrAlreadyExists, ErrEntityConcurrentUpdate, ErrGatewayEUITaken, ErrGatewayNotFound, ErrGatewayNotFoundByEUI, ErrIdTaken } from '../../errors';
import { API_KEY_CLEANUP, type ApiKeyCleanup, IDENTITY_DIRECTORY, type IdentityDirectory } from '../../identity.contracts';
import { COLLABORATOR_STORE, type CollaboratorStore } from '../collaborators/collaborator.model';
import { callerAccountId } from '../common/caller';
import { mustExistAccount } from '../common/accounts';
import { collaboratorAccount, contactAccount, creationContacts } from '../common/contacts';
import { withoutZeroValues } from '../common/document';
import { listQuery } from '../common/entity-list';
import { DEFAULT_PATHS, listScope, visibleEntries } from '../common/list-access';
import { updateOptimistically } from '../common/optimistic';
import { requireContactsAreCollaborators } from '../common/update-contacts';
import { effectiveUpdatePaths, type UpdatePathRules } from '../common/update-paths';
import { USER_STORE, type UserStore } from '../users/user.model';
import { GATEWAY_STORE, type GatewayStore, type IsGateway } from './gateway.model';

const UPDATE_RULES: UpdatePathRules = {
  readOnly: ['ids', 'ids.gateway_id'],
  ignored: ['created_at', 'updated_at', 'deleted_at'],
  whole: ['administrative_contact', 'technical_contact'],
};

type Empty = Record<string, never>;

const EVENTS = IS_EVENTS.gateway;

/** A gateway's event identifiers: its ID and, when it has one, its EUI as stored. */
function gatewayIdentifiers(ids: IsGateway['ids']): EntityIdentifiersJson {
  return { gateway_ids: { gateway_id: ids.gateway_id, ...(ids.eui ? { eui: ids.eui } : {}) } };
}

/**
 * The GatewayRegistry (TTS `pkg/identityserver/gateway_registry.go`): gateways, their first
 * collaborator, and the EUI → gateway lookup of the data plane. An EUI belongs to one gateway
 * until that gateway is purged. Each change publishes its `gateway.*` event once it succeeded.
 */
@Injectable()
export class GatewayRegistryService {
  constructor(
    @Inject(GATEWAY_STORE) private readonly store: GatewayStore,
    @Inject(USER_STORE) private readonly users: UserStore,
    @Inject(COLLABORATOR_STORE) private readonly collaborators: CollaboratorStore,
    @Inject(IDENTITY_DIRECTORY) private readonly directory: IdentityDirectory,
    @Inject(API_KEY_CLEANUP) private readonly apiKeys: ApiKeyCleanup,
    private readonly invalidator: AccessInvalidator,
    private readonly events: EventPublisher,
  ) {}

  /** Stores the gateway with the collaborator holding `RIGHT_ALL`; contacts default to the collaborator. */
  async create({ gateway, collaborator }: CreateGatewayRequest, ctx: RpcContext): Promise<IsGateway> {
    const account = collaboratorAccount(collaborator);
    const contacts = creationContacts(gateway, account);
    await mustExistAccount(this.directory, account);
    const now = nowTimestamp();
    const { ids, ...fields } = pickGatewayFields(gateway);
    const gtw: IsGateway = { ids, created_at: now, updated_at: now, ...fields, ...contacts };
    const result = await this.store.create(gtw, { ids: account, rights: [Right.RIGHT_ALL] });
    if (result.ok) {
      this.events.publish(EVENTS.create, gatewayIdentifiers(gtw.ids), { ctx });
      return gtw;
    }
    if (result.conflict === 'id') throw ErrIdTaken.with({}, ErrAlreadyExists.with());
    throw euiTaken(gtw.ids.eui ?? '', result.holder);
  }

  async get({ gateway_ids, field_mask }: GetGatewayRequest): Promise<Partial<IsGateway>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['GatewayRegistry.Get']);
    return withDerivedFrequencyPlan(selectFields(await this.mustGet(gateway_ids.gateway_id), [...DEFAULT_PATHS, ...withFrequencyPlans(paths)]));
  }

  /** The gateway registered with an EUI (internal: the data plane's lookup). */
  async getIdentifiersForEUI({ eui }: GetGatewayIdentifiersForEUIRequest): Promise<{ gateway_id: string; eui: string }> {
    const gateway = await this.store.getByEui(eui.toUpperCase());
    if (!gateway) throw ErrGatewayNotFoundByEUI.with({ gateway_eui: eui.toUpperCase() });
    return { gateway_id: gateway.ids.gateway_id, eui: eui.toUpperCase() };
  }

  /** The Gateway Server's lookup (`GsIs.GetGatewayForEUI`): a live gateway's identifiers and frequency plans by EUI. */
  async forEui({ eui }: GetGatewayForEUIRequest): Promise<{ ids: { gateway_id: string; eui: string }; frequency_plan_ids: string[] }> {
    const gateway = await this.store.getByEui(eui.toUpperCase());
    if (!gateway) throw ErrGatewayNotFoundByEUI.with({ gateway_eui: eui.toUpperCase() });
    const plans = gateway.frequency_plan_ids?.length ? gateway.frequency_plan_ids : gateway.frequency_plan_id ? [gateway.frequency_plan_id] : [];
    return { ids: { gateway_id: gateway.ids.gateway_id, eui: eui.toUpperCase() }, frequency_plan_ids: plans };
  }

  async list(req: ListGatewaysRequest, caller: CallerIdentity | undefined): Promise<WithTotal<{ gateways?: Partial<IsGateway>[] }>> {
    const paths = req.field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['GatewayRegistry.List']);
    const scope = await listScope(req.collaborator, caller, Right.RIGHT_USER_GATEWAYS_LIST, this.users);
    if (!scope) return new WithTotal({}, 0);
    const { gateways, total } = await this.store.list(listQuery(req, 'gateway_id', scope.collaborator));
    const idOf = (gtw: IsGateway) => gtw.ids.gateway_id;
    const accountId = callerAccountId(caller);
    const held = accountId ? await this.collaborators.rightsOn(accountId, 'gateway', gateways.map(idOf)) : new Map();
    const entries = visibleEntries(gateways, idOf, withFrequencyPlans(paths), Right.RIGHT_GATEWAY_INFO, caller, held).map(withDerivedFrequencyPlan);
    return new WithTotal(entries.length > 0 ? { gateways: entries } : {}, total);
  }

  /** Applies the masked paths (`ids.eui` included, still unique); contacts must be collaborators. The event's data: the request's paths. */
  async update({ gateway, field_mask }: UpdateGatewayRequest, ctx: RpcContext): Promise<Partial<IsGateway>> {
    const requested = field_mask?.paths ?? [];
    checkFieldMaskPaths(requested, ALLOWED_PATHS['GatewayRegistry.Update']);
    const paths = withFrequencyPlans(effectiveUpdatePaths(requested, UPDATE_RULES));
    const stored = paths.filter((p) => p !== 'frequency_plan_id');
    const id = gateway.ids.gateway_id;
    const changes = { ...pickGatewayFields(gateway), ...(await requireContactsAreCollaborators(this.collaborators, { kind: 'gateway', id }, gateway, paths)) };
    const updated = await updateOptimistically(
      () => this.mustGet(id),
      (current) => withDerivedFrequencyPlan({ ...applyFields(current, changes, stored), updated_at: nowTimestamp() }),
      async (next, expected) => {
        const result = await this.store.replace(next, expected);
        if (result.ok || result.conflict === 'stale') return result.ok;
        throw euiTaken(next.ids.eui ?? '', result.holder);
      },
      () => ErrEntityConcurrentUpdate.with({ entity_type: 'gateway', entity_id: id }),
    );
    this.events.publish(EVENTS.update, gatewayIdentifiers(updated.ids), { ctx, data: [...requested] });
    return withDerivedFrequencyPlan(selectFields(updated, [...DEFAULT_PATHS, ...paths]));
  }

  /** Soft delete: the ID and the EUI stay taken. */
  async delete({ gateway_id }: GatewayIdentifiers, ctx: RpcContext): Promise<Empty> {
    if (!(await this.store.softDelete(gateway_id, nowTimestamp()))) throw ErrGatewayNotFound.with({ gateway_id });
    this.invalidator.invalidate({ entity: { kind: 'gateway', id: gateway_id } });
    this.events.publish(EVENTS.delete, await this.storedIdentifiers(gateway_id), { ctx });
    return {};
  }

  async restore({ gateway_id }: GatewayIdentifiers, ctx: RpcContext): Promise<Empty> {
    if (!(await this.store.restore(gateway_id))) throw ErrGatewayNotFound.with({ gateway_id });
    this.invalidator.invalidate({ entity: { kind: 'gateway', id: gateway_id } });
    this.events.publish(EVENTS.restore, await this.storedIdentifiers(gateway_id), { ctx });
    return {};
  }

  /** Removes the gateway (deleted or not) with its collaborators and API keys (those first), freeing its ID and EUI. */
  async purge({ gateway_id }: GatewayIdentifiers, ctx: RpcContext): Promise<Empty> {
    const gateway = await this.store.get(gateway_id, 'any');
    if (!gateway) throw ErrGatewayNotFound.with({ gateway_id });
    await this.apiKeys.deleteKeysOf({ kind: 'gateway', id: gateway_id });
    if (!(await this.store.purge(gateway_id))) throw ErrGatewayNotFound.with({ gateway_id });
    this.invalidator.invalidate({ entity: { kind: 'gateway', id: gateway_id } });
    this.events.publish(EVENTS.purge, gatewayIdentifiers(gateway.ids), { ctx });
    return {};
  }

  /** The identifiers (with the EUI) of a gateway just deleted or restored; its ID alone if it is gone meanwhile. */
  private async storedIdentifiers(gatewayId: string): Promise<EntityIdentifiersJson> {
    return gatewayIdentifiers((await this.store.get(gatewayId, 'any'))?.ids ?? { gateway_id: gatewayId });
  }

  private async mustGet(gatewayId: string): Promise<IsGateway> {
    const gateway = await this.store.get(gatewayId);
    if (!gateway) throw ErrGatewayNotFound.with({ gateway_id: gatewayId });
    return gateway;
  }
}

function euiTaken(eui: string, holder: IsGateway) {
  const contact = contactAccount(holder.administrative_contact)?.id;
  return ErrGatewayEUITaken.with({ gateway_eui: eui, gateway_id: holder.ids.gateway_id, ...(contact ? { administrative_contact: contact } : {}) });
}

/** TTS reads and writes the deprecated `frequency_plan_id` through `frequency_plan_ids`. */
function withFrequencyPlans(paths: readonly string[]): string[] {
  return hasAnyField(paths, 'frequency_plan_id') && !paths.includes('frequency_plan_ids') ? [...paths, 'frequency_plan_ids'] : [...paths];
}

/** `frequency_plan_id` as `frequency_plan_ids[0]` wherever the plans are (TTS `getGateway`, `listGateways`). */
function withDerivedFrequencyPlan<G extends Partial<IsGateway>>(gateway: G): G {
  const { frequency_plan_id: _derived, ...rest } = gateway;
  return (rest.frequency_plan_ids?.length ? { ...rest, frequency_plan_id: rest.frequency_plan_ids[0] } : rest) as G;
}

/** The fields of a request's Gateway the IS stores, except contacts; `frequency_plan_id` becomes `frequency_plan_ids` when those are absent. */
export function pickGatewayFields(gtw: Gateway): Omit<IsGateway, 'created_at' | 'updated_at' | 'administrative_contact' | 'technical_contact'> {
  const plans = gtw.frequency_plan_ids?.length ? [...gtw.frequency_plan_ids] : gtw.frequency_plan_id ? [gtw.frequency_plan_id] : undefined;
  return withDerivedFrequencyPlan(
    withoutZeroValues({
      ids: { gateway_id: gtw.ids.gateway_id, ...(gtw.ids.eui ? { eui: gtw.ids.eui.toUpperCase() } : {}) },
      name: gtw.name,
      description: gtw.description,
      attributes: gtw.attributes && Object.keys(gtw.attributes).length > 0 ? plainJson(gtw.attributes) : undefined,
      version_ids: gtw.version_ids ? withoutZeroValues(plainJson(gtw.version_ids)) : undefined,
      gateway_server_address: gtw.gateway_server_address,
      auto_update: gtw.auto_update,
      update_channel: gtw.update_channel,
      frequency_plan_ids: plans,
      status_public: gtw.status_public,
      location_public: gtw.location_public,
      schedule_downlink_late: gtw.schedule_downlink_late,
      enforce_duty_cycle: gtw.enforce_duty_cycle,
      schedule_anytime_delay: gtw.schedule_anytime_delay,
      update_location_from_status: gtw.update_location_from_status,
      require_authenticated_connection: gtw.require_authenticated_connection,
      disable_packet_broker_forwarding: gtw.disable_packet_broker_forwarding,
    }) as IsGateway,
  );
}
