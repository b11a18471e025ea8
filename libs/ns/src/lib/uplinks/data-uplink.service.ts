import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { NS_EVENTS, nowTimestamp, type RpcContext, type UplinkMessage } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { isStackError } from '@lorawan/errors';
import { decryptFrmPayload, encryptFOpts } from '@lorawan/crypto';
import {
  type DataRate,
  dataRate,
  dataRateIndexOf,
  getFrequencyPlan,
  type MacCommandJson,
  type MACPayload,
  parseMacCommands,
  type ParsedMacCommands,
} from '@lorawan/lorawan';
import { nsDataUplinks } from '@lorawan/observability';
import { DeviceRegistry } from '@lorawan/registry';
import { ApplicationUplinks } from '../application-uplinks.service';
import { DataDownlinkService, type QueuedDownlink } from '../downlinks/data-downlink.service';
import { ErrDeviceNotFound, ErrFCntReplay, ErrUplinkTooLate } from '../errors';
import { ErrRekeyIndMissing } from '../mac/errors';
import type { MacDevice, MacEvent, MacStateJson } from '../mac/mac-draft';
import { NS_MAC_DEFAULTS } from '../mac/mac-defaults';
import { effectiveMacSettings } from '../mac/mac-settings';
import { applyUplinkMac } from '../mac/uplink-mac';
import { uplinkSummary } from '../end-devices/recent-uplinks';
import { type DataFrame, matchSession, type NsDataDevice, type NsMacState, type SessionMatch } from './session-match';
import { UplinkCopies } from './uplink-copies.service';
import type { DedupTiming } from './uplink-deduplicator';
import { WorkSlots } from './work-slots';

/** Data uplinks (TTS `config.go`): copies within 200 ms are merged; 1 s more they are still duplicates. */
export const DATA_DEDUP: DedupTiming = { windowMs: 200, cooldownMs: 1000 };
/** How many uplinks `recent_adr_uplinks` keeps (the spec: at most 20). */
export const RECENT_ADR_UPLINKS = 20;

type Json = Record<string, unknown>;
interface JoinRequestJson {
  downlink_settings?: { rx1_dr_offset?: number; rx2_dr?: number };
  rx_delay?: number;
  cf_list?: unknown;
}

/** The device after an uplink, the confirmed downlink the uplink answered (if one was waiting), and what its MAC commands did. */
interface Stored {
  device: NsDataDevice;
  answered?: { downlink: QueuedDownlink; acked: boolean };
  macEvents: MacEvent[];
  /** LinkCheckReq, DeviceTimeReq: answered in the downlink, with every copy's metadata. */
  afterMerge: MacCommandJson[];
}

/** The MAC parameters a device uses once it took its join-accept: its RX1 delay, RX1 DR offset, RX2 data rate and (with a CFList) the plan's channels. */
function joinedParameters(macState: NsMacState, request: JoinRequestJson | undefined): Json {
  const current = (macState.current_parameters ?? {}) as Json;
  if (!request) return current;
  const desired = (macState.desired_parameters ?? {}) as Json;
  return {
    ...current,
    ...(request.rx_delay !== undefined ? { rx1_delay: request.rx_delay } : {}),
    ...(request.downlink_settings?.rx1_dr_offset !== undefined ? { rx1_data_rate_offset: request.downlink_settings.rx1_dr_offset } : {}),
    ...(request.downlink_settings?.rx2_dr !== undefined ? { rx2_data_rate_index: request.downlink_settings.rx2_dr } : {}),
    ...(request.cf_list && desired.channels ? { channels: desired.channels } : {}),
  };
}

/**
 * The Network Server's data uplinks (TTS `grpc_gsns.go` handleDataUplink, dataplane-notes §4):
 * 1. the first copy claims the uplink (the deduplication of the joins; later copies only leave
 *    their metadata);
 * 2. the candidates are the devices whose session or pending session has the frame's DevAddr; the
 *    sender is the one whose MIC holds with the recovered 32-bit FCnt (`matchSession`), else the
 *    uplink is no device's (`device_not_found`);
 * 3. `ns.up.data.receive`; the device is updated under optimistic concurrency, checked again
 *    against what is stored then (another NS replica may have handled the same FCnt:
 *    `ns.up.data.drop`): a pending session becomes the session (its MAC state the MAC state, the
 *    join request done), `last_f_cnt_up`, `rx_windows_available`, the recent uplinks
 *    (NS_RECENT_UPLINKS) and ADR uplinks (at most 20, reset by an uplink without the ADR bit);
 *    steps 2 and 3 run in one of NS_UPLINK_CONCURRENCY work slots, in arrival order, and an
 *    uplink whose GS stopped waiting for the answer meanwhile is dropped (`uplink_too_late`);
 * 4. after the window, every copy's metadata is merged (`ns.up.merge_metadata`, `ns.up.data.process`);
 * 5. an uplink with an FPort other than 0 goes to the AS, FRMPayload still encrypted
 *    (`NsAs.HandleUplink`), then `ns.up.data.forward`; retransmissions are not forwarded again.
 */
@Injectable()
export class DataUplinkService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('DataUplinks');
  private readonly forwarding = new Set<Promise<void>>();
  private readonly recentUplinks: number;
  private readonly maxAgeMs: number;
  private readonly slots: WorkSlots;

  constructor(
    private readonly registry: DeviceRegistry,
    private readonly copies: UplinkCopies,
    private readonly downlinks: DataDownlinkService,
    private readonly applicationUplinks: ApplicationUplinks,
    private readonly events: EventPublisher,
    @Inject(STACK_CONFIG) config: StackConfig,
    @Inject(NS_MAC_DEFAULTS) private readonly macDefaults: Record<string, unknown>,
  ) {
    this.recentUplinks = config.ns.recentUplinks;
    this.maxAgeMs = config.rpcTimeoutMs;
    this.slots = new WorkSlots(config.ns.uplinkConcurrency);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.forwarding]);
  }

  async handle(up: UplinkMessage, mType: string, payload: MACPayload, ctx: RpcContext): Promise<Record<string, never>> {
    const message: Json = { ...up, received_at: nowTimestamp() };
    const claimed = await this.copies.claim(up, DATA_DEDUP);
    const { copy } = claimed;
    if (!claimed.first) {
      nsDataUplinks.inc({ result: 'duplicate' });
      return {};
    }
    const { match, stored, eventCtx, ids, fullFrame } = await this.slots.run(() => this.matchAndStore(up, mType, payload, message, copy.correlation_ids, ctx));
    const devAddr = payload.f_hdr.dev_addr;
    const merged = await this.copies.merged(claimed, DATA_DEDUP);
    const mergedCtx: RpcContext = { ...eventCtx, correlation_ids: [...new Set([...merged.correlation_ids, ...eventCtx.correlation_ids])] };
    this.events.publish(NS_EVENTS.mergeMetadata, ids, { ctx: mergedCtx, data: merged.gateway_count });
    for (const { event, data } of stored.macEvents) this.events.publish(event, ids, { ctx: mergedCtx, data });
    const processed = { ...fullFrame, rx_metadata: merged.rx_metadata, correlation_ids: mergedCtx.correlation_ids };
    this.events.publish(NS_EVENTS.dataProcess, ids, { ctx: mergedCtx, data: processed });
    nsDataUplinks.inc({ result: match.retransmission ? 'retransmission' : 'processed' });
    const settings = (up.settings ?? {}) as { frequency?: string };
    const answered = {
      confirmed: mType === 'CONFIRMED_UP',
      adr: payload.f_hdr.f_ctrl.adr,
      adr_ack_req: payload.f_hdr.f_ctrl.adr_ack_req ?? false,
      f_cnt: match.f_cnt,
      frequency: settings.frequency ?? '',
      data_rate_index: match.data_rate_index,
      after_merge: stored.afterMerge,
      received_at: message.received_at as string,
    };
    const task = Promise.all([
      // The receive windows first: RX1 opens a second after the uplink.
      this.downlinks.classA(stored.device, answered, merged, mergedCtx),
      this.forward(match, devAddr, processed, payload, mType, stored.answered, mergedCtx),
    ])
      .then(() => undefined)
      .finally(() => this.forwarding.delete(task));
    this.forwarding.add(task);
    return {};
  }

  /**
   * Steps 2 and 3, in one of the NS's work slots: an uplink that waited longer than the GS waits
   * for the answer (RPC_TIMEOUT_MS, from when the GS received it) is dropped unseen
   * (`uplink_too_late`): under more load than the NS takes, it sheds what its caller gave up on.
   */
  private async matchAndStore(up: UplinkMessage, mType: string, payload: MACPayload, message: Json, copyIds: string[], ctx: RpcContext) {
    const age = up.received_at ? Date.now() - Date.parse(up.received_at) : 0;
    if (age > this.maxAgeMs) {
      nsDataUplinks.inc({ result: 'too_late' });
      throw ErrUplinkTooLate.with({ age_ms: age });
    }
    const match = await this.match(up, payload);
    if (!match) {
      nsDataUplinks.inc({ result: 'no_match' });
      throw ErrDeviceNotFound.with({ device_uid: payload.f_hdr.dev_addr });
    }
    const ids = { device_ids: { ...match.device.ids, dev_addr: payload.f_hdr.dev_addr } };
    const eventCtx: RpcContext = { ...ctx, correlation_ids: [...new Set([...copyIds, ...ctx.correlation_ids])] };
    const fullFrame = { ...message, payload: { m_hdr: { m_type: mType }, mac_payload: { f_port: payload.f_port, full_f_cnt: match.f_cnt } } };
    this.events.publish(NS_EVENTS.dataReceive, ids, { ctx: eventCtx, data: fullFrame });
    try {
      return { match, stored: await this.store(match, message, payload), eventCtx, ids, fullFrame };
    } catch (err) {
      nsDataUplinks.inc({ result: 'dropped' });
      if (isStackError(err)) this.events.publish(NS_EVENTS.dataDrop, ids, { ctx: eventCtx, data: err.toDetails() });
      throw err;
    }
  }

  private async match(up: UplinkMessage, payload: MACPayload): Promise<(SessionMatch & { data_rate_index: number }) | undefined> {
    const candidates = (await this.registry.bySessionDevAddr(payload.f_hdr.dev_addr)) as NsDataDevice[];
    const settings = (up.settings ?? {}) as { frequency?: string; data_rate?: DataRate };
    for (const device of candidates) {
      const plan = getFrequencyPlan(device.frequency_plan_id ?? '');
      const dataRateIndex = plan && settings.data_rate ? dataRateIndexOf(plan.band_id, settings.data_rate) : undefined;
      if (dataRateIndex === undefined && plan) continue;
      const raw = Buffer.from(up.raw_payload ?? '', 'base64');
      // LoRaWAN 1.0.4 (TTS: not 1.1) ignores an uplink whose MACPayload is longer than its data rate allows.
      const version = device.mac_state?.lorawan_version ?? device.lorawan_version;
      const maxMacPayload = plan && dataRateIndex !== undefined ? dataRate(plan.band_id, dataRateIndex)?.max_mac_payload : undefined;
      if (version === 'MAC_V1_0_4' && maxMacPayload !== undefined && raw.length - 5 > maxMacPayload) continue;
      const frame: DataFrame = {
        raw,
        dev_addr: payload.f_hdr.dev_addr,
        f_cnt: payload.f_hdr.f_cnt,
        ack: payload.f_hdr.f_ctrl.ack,
        frequency: settings.frequency ?? '',
        data_rate_index: dataRateIndex ?? 0,
      };
      const match = matchSession(frame, device, (e) => this.registry.openKey(e));
      if (match) return { ...match, data_rate_index: frame.data_rate_index };
    }
    return undefined;
  }

  /** Step 3: the device after the uplink, against what is stored now. */
  private async store(match: SessionMatch & { data_rate_index: number }, message: Json, payload: MACPayload): Promise<Stored> {
    const { ids } = match.device;
    const commands = this.macCommands(match, payload);
    const plan = getFrequencyPlan(match.device.frequency_plan_id ?? '');
    const key = { application_id: ids.application_ids.application_id, device_id: ids.device_id };
    return this.registry.modify(
      key,
      (stored) => {
        const device = stored as NsDataDevice;
        const current = device[match.which];
        // Another replica (or an earlier copy's handling) may have moved the session on since the match.
        if (!current || current.dev_addr !== match.session.dev_addr || current.keys?.session_key_id !== match.session.keys?.session_key_id) {
          throw ErrFCntReplay.with({ f_cnt: match.f_cnt, last_f_cnt_up: current?.last_f_cnt_up ?? -1 });
        }
        // A retransmission repeats the latest FCnt; a lower one, or a new frame on the latest FCnt, is a replay.
        const last = current.last_f_cnt_up;
        if (last !== undefined && (match.f_cnt < last || (match.f_cnt === last && !match.retransmission))) {
          throw ErrFCntReplay.with({ f_cnt: match.f_cnt, last_f_cnt_up: last });
        }
        const session = { ...current, last_f_cnt_up: match.f_cnt };
        let macState: NsMacState = (match.which === 'pending_session' ? device.pending_mac_state : device.mac_state) ?? ({} as NsMacState);
        const next: NsDataDevice & Json = { ...device, session };
        if (match.which === 'pending_session') {
          // The join is done: the pending session and MAC state become current, with what the join-accept told the device (TTS; 1.1's RekeyInd comes with the MAC layer).
          const { pending_join_request: request, queued_join_accept: _accept, ...rest } = macState;
          macState = { ...rest, current_parameters: joinedParameters(rest, request as JoinRequestJson | undefined) };
          delete next.pending_session;
          delete next.pending_mac_state;
          next.ids = { ...device.ids, dev_addr: session.dev_addr };
        }
        const recent = recentUplink(message, payload);
        const summary = uplinkSummary(recent);
        // Only the latest uplink keeps its tokens (the downlink paths of a class C downlink) and correlation IDs (TTS).
        const earlier = ((macState.recent_uplinks as Json[] | undefined) ?? []).slice(1 - this.recentUplinks).map(uplinkSummary);
        next.mac_state = { ...macState, rx_windows_available: true, recent_uplinks: [...earlier, recent] };
        // The device's `recent_uplinks` is the MAC state's, summarized when it is read (`presentNsDevice`): not stored twice.
        delete next.recent_uplinks;
        // The seed's rule: at most 20, reset by every uplink without the ADR bit.
        next.recent_adr_uplinks = payload.f_hdr.f_ctrl.adr
          ? [...(((device as Json).recent_adr_uplinks as Json[] | undefined) ?? []), summary].slice(-RECENT_ADR_UPLINKS)
          : [];
        // LoRaWAN 1.1: the device shows it took the join-accept with RekeyInd (TTS drops a first uplink without it).
        const version = (match.which === 'pending_session' ? device.lorawan_version : macState.lorawan_version) ?? device.lorawan_version;
        if (match.which === 'pending_session' && version === 'MAC_V1_1' && !commands.commands.some((c) => c.cid === 'CID_REKEY'))
          throw ErrRekeyIndMissing.with();
        let macEvents: MacEvent[] = [];
        let afterMerge: MacCommandJson[] = [];
        if (plan) {
          const mac = applyUplinkMac(next as MacDevice, next.mac_state as MacStateJson, {
            commands,
            f_cnt: match.f_cnt,
            received_at: message.received_at as string,
            dev_addr: session.dev_addr ?? '',
            plan,
            settings: effectiveMacSettings(device.mac_settings, this.macDefaults),
            retransmission: match.retransmission,
            class_b: payload.f_hdr.f_ctrl.class_b ?? false,
            adr: payload.f_hdr.f_ctrl.adr,
            data_rate_index: match.data_rate_index,
            recent_adr_uplinks: next.recent_adr_uplinks as Json[],
          });
          Object.assign(next, mac.device);
          macEvents = mac.events;
          afterMerge = mac.after_merge;
        }
        // A confirmed downlink waiting for the device's answer: this uplink's ACK bit is it (TTS: downlink_ack or downlink_nack).
        const pending = (next.mac_state as Json).pending_application_downlink as QueuedDownlink | undefined;
        let answered: Stored['answered'];
        if (pending && !match.retransmission) {
          answered = { downlink: pending, acked: payload.f_hdr.f_ctrl.ack };
          delete (next.mac_state as Json).pending_application_downlink;
        }
        return { device: next, result: { device: next, answered, macEvents, afterMerge } };
      },
      // The device as the match read it: written at once, unless another write came in between.
      { read: match.device },
    );
  }

  /**
   * The MAC commands of an uplink (LoRaWAN 1.1 §4.3.1.6, TTS `grpc_gsns.go`): an FPort 0 FRMPayload
   * (encrypted with the NwkSEncKey; 1.0.x: the NwkSKey), else FOpts (1.1: encrypted with the
   * NwkSEncKey, the FOpts errata's keystream).
   */
  private macCommands(match: SessionMatch, payload: MACPayload): ParsedMacCommands {
    const inPayload = payload.f_port === 0 && payload.frm_payload.length > 0;
    const fOpts = payload.f_hdr.f_opts ?? Buffer.alloc(0);
    if (!inPayload && fOpts.length === 0) return { commands: [] };
    const version =
      (match.which === 'pending_session' ? match.device.lorawan_version : match.device.mac_state?.lorawan_version) ?? match.device.lorawan_version;
    const keys = match.session.keys;
    const envelope = keys?.nwk_s_enc_key ?? keys?.f_nwk_s_int_key;
    const key = envelope ? this.registry.openKey(envelope).key : undefined;
    if (!key) return { commands: [] };
    const devAddr = payload.f_hdr.dev_addr;
    const bytes = inPayload
      ? decryptFrmPayload(key, devAddr, match.f_cnt, true, payload.frm_payload)
      : version === 'MAC_V1_1'
        ? encryptFOpts(key, devAddr, match.f_cnt, true, fOpts)
        : fOpts;
    return parseMacCommands(Buffer.from(bytes), 'uplink');
  }

  /** Step 5 (in the background: the GS has its answer). */
  private async forward(
    match: SessionMatch,
    devAddr: string,
    processed: Json,
    payload: MACPayload,
    mType: string,
    answered: Stored['answered'],
    ctx: RpcContext,
  ): Promise<void> {
    const ids = { ...match.device.ids, dev_addr: devAddr };
    const ups: Json[] = [];
    if (answered)
      ups.push({ end_device_ids: ids, correlation_ids: ctx.correlation_ids, [answered.acked ? 'downlink_ack' : 'downlink_nack']: answered.downlink });
    // FPort 0 (MAC commands only) and frames without FPort stay in the NS; a retransmission was forwarded the first time.
    const forwardUplink = Boolean(payload.f_port) && !match.retransmission;
    if (forwardUplink) ups.push(this.applicationUplink(match, ids, processed, payload, mType, ctx));
    if (ups.length === 0) return;
    if (!(await this.applicationUplinks.send(ups, ctx, { device_id: ids.device_id, what: 'uplink' }))) return;
    if (forwardUplink) this.events.publish(NS_EVENTS.dataForward, { device_ids: ids }, { ctx, data: ups[ups.length - 1] });
  }

  private applicationUplink(match: SessionMatch, ids: Json, processed: Json, payload: MACPayload, mType: string, ctx: RpcContext): Json {
    return {
      end_device_ids: ids,
      correlation_ids: ctx.correlation_ids,
      uplink_message: {
        session_key_id: match.session.keys?.session_key_id,
        f_port: payload.f_port,
        f_cnt: match.f_cnt,
        frm_payload: payload.frm_payload.toString('base64'),
        rx_metadata: processed.rx_metadata,
        settings: processed.settings,
        received_at: processed.received_at,
        ...(mType === 'CONFIRMED_UP' ? { confirmed: true } : {}),
        ...(processed.consumed_airtime ? { consumed_airtime: processed.consumed_airtime } : {}),
      },
    };
  }
}

/** An uplink as the MAC state keeps it (TTS `MACState.UplinkMessage`: what ADR and downlink paths need). */
function recentUplink(message: Json, payload: MACPayload): Json {
  const settings = (message.settings ?? {}) as Json;
  return {
    payload: { mac_payload: { f_hdr: { f_ctrl: payload.f_hdr.f_ctrl, f_cnt: payload.f_hdr.f_cnt }, f_port: payload.f_port } },
    settings: { data_rate: settings.data_rate, frequency: settings.frequency },
    rx_metadata: ((message.rx_metadata ?? []) as Json[]).map((md) => ({
      gateway_ids: md.gateway_ids,
      channel_rssi: md.channel_rssi,
      snr: md.snr,
      uplink_token: md.uplink_token,
    })),
    received_at: message.received_at,
    correlation_ids: message.correlation_ids,
  };
}
