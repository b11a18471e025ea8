import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import {
  type EntityIdentifiersJson,
  type HandleJoinRequest,
  type JoinResponse,
  NS_EVENTS,
  nowTimestamp,
  type RpcContext,
  type SessionKeys,
  type UplinkMessage,
} from '@lorawan/api';
import { EventPublisher, RpcInvoker } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { KeyVault, parseKeks } from '@lorawan/crypto';
import { isErrorDetails, isStackError, StackError } from '@lorawan/errors';
import {
  cfListMessage,
  dataRateIndexOf,
  type DataRate,
  devAddrPrefixOf,
  type DevAddrPrefix,
  type FrequencyPlan,
  getBand,
  getFrequencyPlan,
  type JoinRequestPayload,
  parseDevAddrPrefix,
  randomDevAddr,
} from '@lorawan/lorawan';
import { nsJoins } from '@lorawan/observability';
import { DeviceRegistry, type KeyEnvelopeJson } from '@lorawan/registry';
import { ApplicationUplinks } from '../application-uplinks/application-uplinks.service';
import { joinAcceptCarriesCfList, joinAcceptWindows, windowsCarrying } from '../downlinks/class-a-windows';
import { type DownlinkToSchedule, GatewayDownlinks, type ScheduledDownlink } from '../downlinks/gateway-downlinks.service';
import {
  ErrDeviceNotFound,
  ErrFrequencyPlanNotFound,
  ErrJoinServerUnavailable,
  ErrJoinUnsupported,
  ErrNoDownlinkPath,
  ErrUnknownDataRate,
  ErrUnwrapKey,
} from '../errors';
import { newMacState, onJoinAcceptNotScheduled } from '../mac-state';
import { asStruct, type NsDevice, type NsMacSettings, type QueuedDownlink, type ReceivedUplink } from '../model';
import type { DedupTiming } from '../uplinks/uplink-deduplicator';
import { downlinkPaths, type MergedUplink, mergedContext } from '../uplinks/merged-uplink';
import { UplinkAdmission } from '../uplinks/uplink-admission';
import { type ClaimedCopy, UplinkCopies } from '../uplinks/uplink-copies.service';
import { NS_MAC_DEFAULTS } from '../mac/mac-defaults';
import { effectiveMacSettings } from '../mac/mac-settings';

/**
 * Join-requests are deduplicated as TTS does: copies within 200 ms are merged into the first, and
 * the same join-request is a duplicate for 6 s (`joinRequestCollectionWindow`: the JS may be slow,
 * and a late copy must not start a second join).
 */
export const JOIN_DEDUP: DedupTiming = { windowMs: 200, cooldownMs: 6000 };

/** What the first copy's handling hands to the join-accept's scheduling. */
interface AcceptedJoin {
  ids: NsDevice['ids'];
  plan: FrequencyPlan;
  uplink: { frequency: string; data_rate_index: number };
  up: ReceivedUplink;
  request: HandleJoinRequest;
  response: JoinResponse;
  /** The device as the join stored it: where the join-accept's own write starts (`DeviceRegistry.modify`'s `read`). */
  stored: NsDevice;
}

const NETWORK_KEYS = ['f_nwk_s_int_key', 's_nwk_s_int_key', 'nwk_s_enc_key'] as const;

/**
 * The Network Server's join handling (TTS `grpc_gsns.go` handleJoinRequest, dataplane-notes §3.1):
 * 0. admitted within NS_JOIN_DEADLINE_MS of the GS receiving it, else refused before any work
 *    (`UplinkAdmission`: the JS is never asked for a join that cannot be answered in time);
 * 1. the first copy of a join-request claims it (copies heard by other gateways, through any GS
 *    or NS replica, only leave their metadata: `JOIN_DEDUP`);
 * 2. the device is found by (JoinEUI, DevEUI); a fresh MAC state is built for its frequency plan,
 *    a DevAddr drawn from the NetID's prefix (or NS_DEV_ADDR_PREFIXES), and the JS asked
 *    (`NsJs.HandleJoin`) with the DLSettings, RxDelay and CFList the network wants;
 * 3. the accepted join is stored as `pending_mac_state` (the reset MAC state) with
 *    `queued_join_accept` (the join-accept and the network session keys, kept sealed with the
 *    NS's KEK by the registry);
 * 4. the call returns (the GS bounds its calls in flight by the work they make; the merge window
 *    is waiting); in the background, after the window, the metadata of every copy is merged
 *    (`ns.up.merge_metadata` with the number of gateways, `ns.up.join.process`);
 * 5. then the join-accept goes to the best gateway (by SNR) for RX1, else
 *    RX2, else the next gateway; once a GS took it, `queued_join_accept` gives way to
 *    `pending_join_request` and `pending_session` (the new session, current from the device's
 *    first uplink), and the AS gets the join-accept with the AppSKey the JS wrapped for it
 *    and, as `invalidated_downlinks`, the queue of the session the device leaves (its current
 *    session's, else its previous pending session's), which the AS encrypts again for the new
 *    session (`NsAs.HandleUplink`), after which `ns.up.join.forward` is published.
 */
@Injectable()
export class JoinRequestService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Joins');
  private readonly vault: KeyVault;
  private readonly prefixes: DevAddrPrefix[];
  private readonly netId: string;
  private readonly scheduling = new Set<Promise<void>>();

  constructor(
    private readonly registry: DeviceRegistry<NsDevice>,
    private readonly copies: UplinkCopies,
    private readonly admission: UplinkAdmission,
    private readonly rpc: RpcInvoker,
    private readonly downlinks: GatewayDownlinks,
    private readonly applicationUplinks: ApplicationUplinks,
    private readonly events: EventPublisher,
    @Inject(STACK_CONFIG) config: StackConfig,
    @Inject(NS_MAC_DEFAULTS) private readonly macDefaults: NsMacSettings,
  ) {
    this.vault = new KeyVault(parseKeks(config.keks));
    this.netId = config.ns.netId;
    this.prefixes = config.ns.devAddrPrefixes.length ? config.ns.devAddrPrefixes.map(parsePrefix) : [devAddrPrefixOf(this.netId)];
  }

  /** Lets join-accepts being scheduled finish before the component closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.settled();
  }

  /** Resolves once the joins answered so far went through their background steps (merge, join-accept, AS). */
  async settled(): Promise<void> {
    while (this.scheduling.size > 0) await Promise.allSettled([...this.scheduling]);
  }

  async handle(up: UplinkMessage, payload: JoinRequestPayload, ctx: RpcContext): Promise<Record<string, never>> {
    const message: ReceivedUplink = { ...up, received_at: nowTimestamp() };
    // Steps 1 to 3 once admitted (before the JS is asked): `UplinkAdmission`.
    const handled = await this.admission.run('join_request', up, async () => {
      const claimed = await this.copies.claim(up, JOIN_DEDUP);
      if (!claimed.first) return undefined;
      const device = await this.device(payload);
      const eventCtx: RpcContext = { ...ctx, correlation_ids: [...new Set([...claimed.copy.correlation_ids, ...ctx.correlation_ids])] };
      this.events.publish(NS_EVENTS.joinReceive, { device_ids: device.ids }, { ctx: eventCtx, data: message });
      try {
        return { claimed, ids: { device_ids: device.ids }, eventCtx, accepted: await this.join(device, message, payload, eventCtx) };
      } catch (err) {
        nsJoins.inc({ result: 'refused' });
        throw err;
      }
    });
    if (!handled) {
      nsJoins.inc({ result: 'duplicate' });
      return {};
    }
    // The GS has its answer once the join is stored: the merge window is waiting, not work (as for data uplinks).
    const task = this.afterStore(handled, message).finally(() => this.scheduling.delete(task));
    this.scheduling.add(task);
    return {};
  }

  /** After the merge window, in the background: the merged metadata's events, then the join-accept and the AS. */
  private async afterStore(
    { claimed, ids, eventCtx, accepted }: { claimed: ClaimedCopy; ids: { device_ids: NsDevice['ids'] }; eventCtx: RpcContext; accepted: AcceptedJoin },
    message: ReceivedUplink,
  ): Promise<void> {
    const merged = await this.copies.merged(claimed, JOIN_DEDUP);
    const mergedCtx = mergedContext(eventCtx, merged);
    this.events.publish(NS_EVENTS.mergeMetadata, ids, { ctx: mergedCtx, data: merged.gateway_count });
    accepted.up = { ...message, rx_metadata: merged.rx_metadata, correlation_ids: mergedCtx.correlation_ids };
    this.events.publish(NS_EVENTS.joinProcess, ids, { ctx: mergedCtx, data: accepted.up });
    await this.sendJoinAccept(accepted, merged, mergedCtx);
  }

  private async device(payload: JoinRequestPayload): Promise<NsDevice> {
    try {
      return await this.registry.getByEuis(payload.join_eui, payload.dev_eui);
    } catch (err) {
      if (ErrDeviceNotFound.matches(err)) nsJoins.inc({ result: 'unknown_device' });
      throw err;
    }
  }

  /** Steps 2 and 3: the JS's answer stored with the device; `ns.up.join.drop` when the device cannot join. */
  private async join(device: NsDevice, up: ReceivedUplink, payload: JoinRequestPayload, ctx: RpcContext): Promise<AcceptedJoin> {
    const ids = { device_ids: device.ids };
    const drop = (err: StackError): never => {
      this.events.publish(NS_EVENTS.joinDrop, ids, { ctx, data: err.toDetails() });
      throw err;
    };
    const uid = `${device.ids.application_ids.application_id}.${device.ids.device_id}`;
    if (!device.supports_join) return drop(ErrJoinUnsupported.with({ device_uid: uid }));
    const plan = getFrequencyPlan(device.frequency_plan_id ?? '');
    if (!plan || !device.lorawan_version) return drop(ErrFrequencyPlanNotFound.with({ id: device.frequency_plan_id ?? '' }));
    const settings = (up.settings ?? {}) as { frequency?: string; data_rate?: DataRate };
    const dataRateIndex = settings.data_rate ? dataRateIndexOf(plan.band_id, settings.data_rate) : undefined;
    if (dataRateIndex === undefined || !settings.frequency) return drop(ErrUnknownDataRate.with({ band_id: plan.band_id }));

    const macSettings = effectiveMacSettings(device.mac_settings, this.macDefaults);
    const macState = newMacState({ lorawan_version: device.lorawan_version, frequencyPlan: plan, mac_settings: macSettings });
    const desired = macState.desired_parameters;
    const request: HandleJoinRequest = {
      raw_payload: up.raw_payload as string,
      dev_addr: randomDevAddr(this.prefixes, device.session?.dev_addr),
      net_id: this.netId,
      selected_mac_version: device.lorawan_version,
      downlink_settings: {
        rx1_dr_offset: desired.rx1_data_rate_offset ?? 0,
        rx2_dr: desired.rx2_data_rate_index ?? 0,
        opt_neg: device.lorawan_version === 'MAC_V1_1',
      },
      rx_delay: desired.rx1_delay ?? getBand(plan.band_id).join_accept_delay_1,
      // Under a downlink dwell-time limit a 33-byte join-accept does not fit every data rate: the CFList
      // goes only where a window carries it (TTS computeMaxMACDownlinkPayloadSize).
      cf_list: joinAcceptCarriesCfList(plan, macState, { frequency: settings.frequency, data_rate_index: dataRateIndex }) ? cfListMessage(plan) : undefined,
      correlation_ids: ctx.correlation_ids,
    };
    this.events.publish(NS_EVENTS.joinClusterAttempt, ids, { ctx, data: request });
    let response: JoinResponse;
    try {
      response = await this.rpc.invoke('NsJs.HandleJoin', request, ctx);
    } catch (err) {
      const error = isErrorDetails(err) ? StackError.fromDetails(err) : ErrJoinServerUnavailable.with({ reason: (err as Error).message });
      this.events.publish(NS_EVENTS.joinClusterFail, ids, { ctx, data: error.toDetails() });
      throw error;
    }
    this.events.publish(NS_EVENTS.joinClusterSuccess, ids, {
      ctx,
      // Never the keys (TTS `joinResponseWithoutKeys`).
      data: { raw_payload: response.raw_payload, session_keys: { session_key_id: response.session_keys.session_key_id }, correlation_ids: ctx.correlation_ids },
    });
    let keys: SessionKeys;
    try {
      keys = this.networkKeys(response, device.lorawan_version);
    } catch (err) {
      return drop(isStackError(err) ? err : ErrUnwrapKey.with({ key: 'network key', kek_label: '' }));
    }
    const stored = await this.registry.modify(
      { application_id: device.ids.application_ids.application_id, device_id: device.ids.device_id },
      (current) => {
        const next: NsDevice = {
          ...current,
          pending_mac_state: {
            ...macState,
            queued_join_accept: {
              payload: response.raw_payload,
              request: withoutCorrelationIds(request),
              keys,
              dev_addr: request.dev_addr,
              net_id: request.net_id,
              correlation_ids: ctx.correlation_ids,
            },
          },
        };
        return { device: next, result: next };
      },
      // The device as the join read it: written at once, unless another write came in between.
      { read: device },
    );
    nsJoins.inc({ result: 'accepted' });
    return {
      ids: device.ids,
      plan,
      uplink: { frequency: settings.frequency, data_rate_index: dataRateIndex },
      up,
      request,
      response,
      stored,
    };
  }

  /** The network session keys for the NS's registry: opened from the NS's KEK (the registry seals them again); before 1.1 one key serves as all three. */
  private networkKeys(response: JoinResponse, version: string): SessionKeys {
    const open = (name: string, envelope: KeyEnvelopeJson | undefined): KeyEnvelopeJson | undefined => {
      if (!envelope || envelope.key) return envelope;
      const key = envelope.kek_label && this.vault.has(envelope.kek_label) ? this.vault.unwrap(envelope) : undefined;
      if (!key) throw ErrUnwrapKey.with({ key: name, kek_label: envelope.kek_label ?? '' });
      return { key };
    };
    const f = open('f_nwk_s_int_key', response.session_keys.f_nwk_s_int_key) as KeyEnvelopeJson;
    const keys: SessionKeys = { session_key_id: response.session_keys.session_key_id };
    for (const name of NETWORK_KEYS) {
      const envelope = version === 'MAC_V1_1' ? open(name, response.session_keys[name]) : f;
      if (envelope) keys[name] = envelope;
    }
    return keys;
  }

  /** Step 5. Failures are events and logs: the device will send another join-request. */
  private async sendJoinAccept(join: AcceptedJoin, merged: MergedUplink, ctx: RpcContext): Promise<void> {
    const ids = { device_ids: join.ids };
    // Only the windows whose data rate carries the join-accept under the device's dwell time.
    const { rx1, rx2 } = windowsCarrying(
      joinAcceptWindows(join.plan, join.stored.pending_mac_state, join.uplink),
      Buffer.from(join.response.raw_payload, 'base64').length,
    );
    const band = getBand(join.plan.band_id);
    const downlink: DownlinkToSchedule = {
      raw_payload: join.response.raw_payload,
      end_device_ids: join.ids,
      request: {
        class: 'CLASS_A',
        rx1_delay: band.join_accept_delay_1,
        ...(rx1 ? { rx1_data_rate: rx1.data_rate, rx1_frequency: rx1.frequency } : {}),
        ...(rx2 ? { rx2_data_rate: rx2.data_rate, rx2_frequency: rx2.frequency } : {}),
        priority: 'HIGHEST',
        frequency_plan_id: join.plan.id,
      },
      correlation_ids: ctx.correlation_ids,
    };
    this.events.publish(NS_EVENTS.joinScheduleAttempt, ids, { ctx, data: downlink });
    let scheduled: ScheduledDownlink;
    try {
      scheduled = await this.downlinks.schedule(downlink, downlinkPaths(merged.rx_metadata), ctx);
    } catch (err) {
      const error = isStackError(err) ? err : ErrNoDownlinkPath.with();
      nsJoins.inc({ result: 'not_scheduled' });
      this.events.publish(NS_EVENTS.joinScheduleFail, ids, { ctx, data: error.toDetails() });
      this.logger.warn({ device_id: join.ids.device_id, error: error.message }, 'join-accept not scheduled');
      await this.dropJoinAccept(join);
      return;
    }
    this.events.publish(NS_EVENTS.joinScheduleSuccess, ids, { ctx, data: scheduled });
    const sessionKeyId = join.response.session_keys.session_key_id;
    let invalidated: QueuedDownlink[] | undefined;
    try {
      invalidated = await this.registry.modify(
        { application_id: join.ids.application_ids.application_id, device_id: join.ids.device_id },
        (device) => {
          const pending = device.pending_mac_state;
          // A later join-request may have replaced this join while it was being sent.
          if (!pending || pending.queued_join_accept?.keys?.session_key_id !== sessionKeyId) return { device, result: undefined };
          const { queued_join_accept: queued, ...rest } = pending;
          const keys = queued?.keys;
          // TTS: the queue of the session the device leaves goes back to the AS, which encrypts it again for the new one.
          const queue = (device.session ?? device.pending_session)?.queued_application_downlinks ?? [];
          return {
            device: {
              ...device,
              pending_mac_state: { ...rest, pending_join_request: queued?.request, rx_windows_available: false },
              pending_session: { dev_addr: join.request.dev_addr, keys, started_at: nowTimestamp() },
            },
            result: queue,
          };
          // The device as the join left it, unless something was written since.
        },
        { read: join.stored },
      );
      if (!invalidated) return;
    } catch (err) {
      this.logger.warn({ device_id: join.ids.device_id, error: (err as Error).message }, 'join-accept sent, device not updated');
      return;
    }
    await this.forwardToApplicationServer(join, invalidated, ctx);
  }

  /** A join-accept that could not be scheduled leaves the MAC state, its session keys with it (unless a later join replaced it). */
  private async dropJoinAccept(join: AcceptedJoin): Promise<void> {
    const sessionKeyId = join.response.session_keys.session_key_id;
    try {
      await this.registry.modify(
        { application_id: join.ids.application_ids.application_id, device_id: join.ids.device_id },
        (stored) => {
          const pending = stored.pending_mac_state;
          if (!pending || pending.queued_join_accept?.keys?.session_key_id !== sessionKeyId) return { device: stored, result: undefined };
          return { device: { ...stored, pending_mac_state: onJoinAcceptNotScheduled(pending) }, result: undefined };
        },
        { read: join.stored },
      );
    } catch (err) {
      this.logger.warn({ device_id: join.ids.device_id, error: (err as Error).message }, 'unscheduled join-accept not dropped');
    }
  }

  /** The join-accept for the AS (TTS ApplicationUp `join_accept`), with the AppSKey the JS wrapped for it. */
  private async forwardToApplicationServer(join: AcceptedJoin, invalidated: QueuedDownlink[], ctx: RpcContext): Promise<void> {
    const deviceIds: EntityIdentifiersJson = { device_ids: { ...join.ids, dev_addr: join.request.dev_addr } };
    const up = {
      end_device_ids: { ...join.ids, dev_addr: join.request.dev_addr },
      correlation_ids: ctx.correlation_ids,
      join_accept: {
        session_key_id: join.response.session_keys.session_key_id,
        ...(join.response.session_keys.app_s_key ? { app_s_key: join.response.session_keys.app_s_key } : {}),
        ...(invalidated.length ? { invalidated_downlinks: invalidated.map((d) => asStruct(d)) } : {}),
        received_at: join.up.received_at,
      },
    };
    if (!(await this.applicationUplinks.send([up], ctx, { device_id: join.ids.device_id, what: 'join-accept' }))) return;
    const { app_s_key: _key, ...joinAccept } = up.join_accept;
    this.events.publish(NS_EVENTS.joinForward, deviceIds, { ctx, data: { ...up, join_accept: joinAccept } });
  }
}

function withoutCorrelationIds({ correlation_ids: _ids, ...request }: HandleJoinRequest): Omit<HandleJoinRequest, 'correlation_ids'> {
  return request;
}

function parsePrefix(text: string): DevAddrPrefix {
  const prefix = parseDevAddrPrefix(text);
  if (!prefix) throw new Error(`NS_DEV_ADDR_PREFIXES: "${text}" is not a DevAddr prefix (bits below its length must be zero)`);
  return prefix;
}
