import { Inject, Injectable } from '@nestjs/common';
import {
  type CallerIdentity,
  type EntityIdentifiersJson,
  Gateway,
  type GetGatewayForEUIRequest,
  type GetGatewayForEUIResponse,
  type GetGatewayIdentifiersForEUIRequest,
  hasAnyField,
  IS_EVENTS,
  plainJson,
  newUlid,
  Right,
  type RpcContext,
  secretPaths,
  type Secret,
  type UpdateGatewayAntennaLocationRequest,
  type UpdateGatewayRequest,
} from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { AccessInvalidator } from '../../access-invalidator';
import { getFrequencyPlan } from '@lorawan/lorawan';
import {
  ErrFrequencyPlansNotFromSameBand,
  ErrGatewayEUITaken,
  ErrGatewayFrequencyPlanNotFound,
  ErrGatewayNotFound,
  ErrGatewayNotFoundByEUI,
} from '../../errors';
import { API_KEY_CLEANUP, type ApiKeyCleanup, IDENTITY_DIRECTORY, type IdentityDirectory } from '../../identity.contracts';
import { COLLABORATOR_STORE, type Collaborator, type CollaboratorStore } from '../collaborators/collaborator.model';
import { contactAccount } from '../common/contacts';
import { withoutZeroValues } from '../common/document';
import { describedFields } from '../registry/entity.mapper';
import { collaboratedKind } from '../registry/entity-kind';
import { CollaboratedEntityRegistry, type UpdatePlan } from '../registry/entity-registry.service';
import { USER_STORE, type UserStore } from '../users/user.model';
import { type EuiConflict, GATEWAY_STORE, type GatewaySecret, type GatewayStore, type IsGateway } from './gateway.model';

/** Gateways (TTS `pkg/identityserver/gateway_registry.go`). */
export const GATEWAY_KIND = collaboratedKind<'gateway', IsGateway, Gateway>({
  kind: 'gateway',
  registry: 'GatewayRegistry',
  events: IS_EVENTS.gateway,
  listRight: Right.RIGHT_USER_GATEWAYS_LIST,
  infoRight: Right.RIGHT_GATEWAY_INFO,
  secrets: { paths: secretPaths(Gateway), right: Right.RIGHT_GATEWAY_READ_SECRETS },
  pick: pickGatewayFields,
  notFound: (gateway_id) => ErrGatewayNotFound.with({ gateway_id }),
});

/** A gateway's event identifiers: its ID and, when it has one, its EUI as stored. */
function gatewayIdentifiers(ids: IsGateway['ids']): EntityIdentifiersJson {
  return { gateway_ids: { gateway_id: ids.gateway_id, ...(ids.eui ? { eui: ids.eui } : {}) } };
}

/**
 * The GatewayRegistry: gateways, their first collaborator, and the EUI → gateway lookup of the
 * data plane. An EUI belongs to one gateway until that gateway is purged (a Create or an Update
 * of `ids.eui` that takes another's fails with `gateway_eui_taken`). `frequency_plan_id` is read
 * and written through `frequency_plan_ids`: up to eight known plans of one band (a gateway with
 * several concentrators), checked when written. Events carry the gateway's EUI as stored.
 */
@Injectable()
export class GatewayRegistryService extends CollaboratedEntityRegistry<'gateway', IsGateway, Gateway, GatewayStore, EuiConflict> {
  constructor(
    @Inject(GATEWAY_STORE) store: GatewayStore,
    @Inject(USER_STORE) users: UserStore,
    @Inject(COLLABORATOR_STORE) collaborators: CollaboratorStore,
    @Inject(IDENTITY_DIRECTORY) directory: IdentityDirectory,
    @Inject(API_KEY_CLEANUP) apiKeys: ApiKeyCleanup,
    invalidator: AccessInvalidator,
    events: EventPublisher,
  ) {
    super(GATEWAY_KIND, store, { users, collaborators, directory, apiKeys, invalidator, events });
  }

  /** The gateway registered with an EUI (internal: the data plane's lookup). */
  async getIdentifiersForEUI({ eui }: GetGatewayIdentifiersForEUIRequest): Promise<{ gateway_id: string; eui: string }> {
    const gateway = await this.store.getByEui(eui.toUpperCase());
    if (!gateway) throw ErrGatewayNotFoundByEUI.with({ gateway_eui: eui.toUpperCase() });
    return { gateway_id: gateway.ids.gateway_id, eui: eui.toUpperCase() };
  }

  /** The Gateway Server's lookup (`GsIs.GetGatewayForEUI`): a live gateway's identifiers and frequency plans by EUI. */
  async forEui({ eui }: GetGatewayForEUIRequest): Promise<GetGatewayForEUIResponse> {
    const gateway = await this.store.getByEui(eui.toUpperCase());
    if (!gateway) throw ErrGatewayNotFoundByEUI.with({ gateway_eui: eui.toUpperCase() });
    const plans = gateway.frequency_plan_ids?.length ? gateway.frequency_plan_ids : gateway.frequency_plan_id ? [gateway.frequency_plan_id] : [];
    return {
      ids: { gateway_id: gateway.ids.gateway_id, eui: eui.toUpperCase() },
      frequency_plan_ids: plans,
      require_authenticated_connection: gateway.require_authenticated_connection ?? false,
      ...(gateway.update_location_from_status ? { update_location_from_status: true } : {}),
    };
  }

  /**
   * `GsIs.UpdateGatewayAntennaLocation`: the first antenna's location from the gateway's status (an
   * antenna added when it has none), through Update (the `gateway.update` event, access
   * invalidation), only while the gateway's `update_location_from_status` is set; else nothing.
   */
  async updateAntennaLocation({ gateway_ids, location }: UpdateGatewayAntennaLocationRequest): Promise<Record<string, never>> {
    const current = await this.store.get(gateway_ids.gateway_id);
    if (!current?.update_location_from_status) return {};
    const [first, ...rest] = current.antennas ?? [];
    const antennas = [{ ...(first ?? {}), location: plainJson(location) }, ...rest];
    const ctx: RpcContext = { request_id: newUlid(), correlation_ids: [], caller: INTERNAL_CALLER };
    await this.update({ gateway: { ids: current.ids, antennas }, field_mask: { paths: ['antennas'] } } as UpdateGatewayRequest, ctx);
    return {};
  }

  protected insert(gateway: IsGateway, collaborator: Collaborator) {
    checkFrequencyPlans(gateway.frequency_plan_ids ?? []);
    return this.store.create(gateway, collaborator);
  }

  protected override conflict(gateway: IsGateway, result: EuiConflict) {
    return euiTaken(gateway.ids.eui ?? '', result.holder);
  }

  protected async replace(next: IsGateway, expectedUpdatedAt: string): Promise<boolean> {
    const result = await this.store.replace(next, expectedUpdatedAt);
    if (result.ok || result.conflict === 'stale') return result.ok;
    throw euiTaken(next.ids.eui ?? '', result.holder);
  }

  protected override identifiers(ids: IsGateway['ids']): EntityIdentifiersJson {
    return gatewayIdentifiers(ids);
  }

  /** The identifiers (with the EUI) of a gateway just deleted or restored; its ID alone if it is gone meanwhile. */
  protected override async identifiersOfStored(gatewayId: string): Promise<EntityIdentifiersJson> {
    return gatewayIdentifiers((await this.store.get(gatewayId, 'any'))?.ids ?? { gateway_id: gatewayId });
  }

  protected override readPaths(paths: readonly string[]): string[] {
    return withFrequencyPlans(paths);
  }

  protected override present<T extends Partial<IsGateway>>(gateway: T): T {
    return withDerivedFrequencyPlan(gateway);
  }

  protected override async planUpdate(gateway: Gateway, paths: string[], ctx: RpcContext): Promise<UpdatePlan<IsGateway>> {
    return super.planUpdate(gateway, withFrequencyPlans(paths), ctx);
  }

  protected override storedPaths(paths: string[]): string[] {
    return paths.filter((p) => p !== 'frequency_plan_id');
  }

  protected override changed(_current: IsGateway, next: IsGateway, paths: readonly string[]): IsGateway {
    if (hasAnyField(paths, 'frequency_plan_ids')) checkFrequencyPlans(next.frequency_plan_ids ?? []);
    return withDerivedFrequencyPlan(next);
  }
}

/** The Gateway Server's location updates: an internal call, every right (the IS checks the gateway's own switch instead). */
const INTERNAL_CALLER: CallerIdentity = { kind: 'internal', id: 'gs', is_admin: false, key_rights: [], universal: true, rights: [] };

function euiTaken(eui: string, holder: IsGateway) {
  const contact = contactAccount(holder.administrative_contact)?.id;
  return ErrGatewayEUITaken.with({ gateway_eui: eui, gateway_id: holder.ids.gateway_id, ...(contact ? { administrative_contact: contact } : {}) });
}

/** A gateway's plans must be known and of one band (TTS's GS refuses others when the gateway connects). */
function checkFrequencyPlans(ids: readonly string[]): void {
  const bands = new Set<string>();
  for (const id of ids) {
    const plan = getFrequencyPlan(id);
    if (!plan) throw ErrGatewayFrequencyPlanNotFound.with({ id });
    bands.add(plan.band_id);
  }
  if (bands.size > 1) throw ErrFrequencyPlansNotFromSameBand.with({ frequency_plan_ids: [...ids], band_ids: [...bands] });
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

/** A request's secret as stored: its value (a `key_id` is the store's to set); none without a value (TTS clears it so). */
function gatewaySecret(secret: Secret | undefined): GatewaySecret | undefined {
  return secret?.value ? { value: secret.value } : undefined;
}

/** The fields of a request's Gateway the IS stores, except contacts; `frequency_plan_id` becomes `frequency_plan_ids` when those are absent. */
export function pickGatewayFields(gtw: Gateway): Omit<IsGateway, 'created_at' | 'updated_at' | 'administrative_contact' | 'technical_contact'> {
  const plans = gtw.frequency_plan_ids?.length ? [...gtw.frequency_plan_ids] : gtw.frequency_plan_id ? [gtw.frequency_plan_id] : undefined;
  return withDerivedFrequencyPlan(
    withoutZeroValues({
      ids: { gateway_id: gtw.ids.gateway_id, ...(gtw.ids.eui ? { eui: gtw.ids.eui.toUpperCase() } : {}) },
      ...describedFields(gtw),
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
      antennas: gtw.antennas?.length ? gtw.antennas.map((a) => plainJson(a)) : undefined,
      lbs_lns_secret: gatewaySecret(gtw.lbs_lns_secret),
      target_cups_uri: gtw.target_cups_uri,
      target_cups_key: gatewaySecret(gtw.target_cups_key),
    }) as IsGateway,
  );
}
