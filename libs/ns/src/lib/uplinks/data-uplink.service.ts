import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { NS_EVENTS, nowTimestamp, type RpcContext, type UplinkMessage } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { isStackError } from '@lorawan/errors';
import { decryptFrmPayload, encryptFOpts } from '@lorawan/crypto';
import { type DataRate, dataRateIndexOf, getFrequencyPlan, type MACPayload, maxMacPayload, parseMacCommands, type ParsedMacCommands } from '@lorawan/lorawan';
import { nsDataUplinks } from '@lorawan/observability';
import { DeviceRegistry } from '@lorawan/registry';
import { type NsApplicationUp, ApplicationUplinks } from '../application-uplinks/application-uplinks.service';
import { DataDownlinkService } from '../downlinks/data-downlink.service';
import { ErrDeviceNotFound } from '../errors';
import { NS_MAC_DEFAULTS } from '../mac/mac-defaults';
import { asStruct, type NsDevice, type NsMacSettings, type ReceivedUplink } from '../model';
import { type AppliedUplink, applyUplink, type DataUplink, type UplinkContext } from './apply-uplink';
import { type DataFrame, matchSession, type SessionMatch } from './session-match';
import { UplinkAdmission } from './uplink-admission';
import { mergedContext } from './merged-uplink';
import { type ClaimedCopy, UplinkCopies } from './uplink-copies.service';
import type { DedupTiming } from './uplink-deduplicator';

/** Data uplinks (TTS `config.go`): copies within 200 ms are merged; 1 s more they are still duplicates. */
export const DATA_DEDUP: DedupTiming = { windowMs: 200, cooldownMs: 1000 };

/** The uplink as processed: every copy's metadata merged, its correlation IDs. */
type ProcessedUplink = ReceivedUplink & { payload: Record<string, unknown> };

/** A data uplink matched to one of its device's sessions, at the data rate index it came at. */
type MatchedUplink = SessionMatch & { data_rate_index: number };

/** A data uplink stored (steps 1 to 3 done): what the background steps need. */
interface StoredUplink {
  claimed: ClaimedCopy;
  match: MatchedUplink;
  stored: AppliedUplink;
  eventCtx: RpcContext;
  ids: { device_ids: NsDevice['ids'] };
  fullFrame: ProcessedUplink;
}

/**
 * The Network Server's data uplinks (TTS `grpc_gsns.go` handleDataUplink, dataplane-notes §4):
 * 1. the first copy claims the uplink (the deduplication of the joins; later copies only leave
 *    their metadata);
 * 2. the candidates are the devices whose session or pending session has the frame's DevAddr; the
 *    sender is the one whose MIC holds with the recovered 32-bit FCnt (`matchSession`), else the
 *    uplink is no device's (`device_not_found`); the device this replica wrote last with the
 *    DevAddr is tried first without reading the store, and written only if still as written
 *    (`storeOnKnown`: one statement instead of two, the same outcome);
 * 3. `ns.up.data.receive`; the device is updated under optimistic concurrency, checked again
 *    against what is stored then (another NS replica may have handled the same FCnt:
 *    `ns.up.data.drop`): a pending session becomes the session (its MAC state the MAC state, the
 *    join request done), `last_f_cnt_up`, `rx_windows_available`, the recent uplinks
 *    (NS_RECENT_UPLINKS) and ADR uplinks (at most 20, reset by an uplink without the ADR bit);
 *    steps 1 to 3 run in one of NS_UPLINK_CONCURRENCY work slots, in arrival order, once
 *    admitted: an uplink that cannot start them within NS_UPLINK_DEADLINE_MS of the GS receiving
 *    it is refused at the door (`UplinkAdmission`);
 * 4. the GS gets its answer (once the uplink is stored: the merge window that follows is waiting,
 *    not work, and the GS bounds its calls in flight by the work they make); after the window,
 *    every copy's metadata is merged (`ns.up.merge_metadata`, `ns.up.data.process`);
 * 5. an uplink with an FPort other than 0 goes to the AS, FRMPayload still encrypted
 *    (`NsAs.HandleUplink`), then `ns.up.data.forward`; retransmissions are not forwarded again.
 */
@Injectable()
export class DataUplinkService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('DataUplinks');
  private readonly forwarding = new Set<Promise<void>>();
  private readonly recentUplinks: number;

  constructor(
    private readonly registry: DeviceRegistry<NsDevice>,
    private readonly copies: UplinkCopies,
    private readonly admission: UplinkAdmission,
    private readonly downlinks: DataDownlinkService,
    private readonly applicationUplinks: ApplicationUplinks,
    private readonly events: EventPublisher,
    @Inject(STACK_CONFIG) config: StackConfig,
    @Inject(NS_MAC_DEFAULTS) private readonly macDefaults: NsMacSettings,
  ) {
    this.recentUplinks = config.ns.recentUplinks;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.settled();
  }

  /** Resolves once the uplinks answered so far went through their background steps (merge, downlink, AS). */
  async settled(): Promise<void> {
    while (this.forwarding.size > 0) await Promise.allSettled([...this.forwarding]);
  }

  async handle(up: UplinkMessage, mType: string, payload: MACPayload, ctx: RpcContext): Promise<Record<string, never>> {
    const message: ReceivedUplink = { ...up, received_at: nowTimestamp() };
    const handled = await this.admission.run('data_uplink', up, async () => {
      const claimed = await this.copies.claim(up, DATA_DEDUP);
      if (!claimed.first) return undefined;
      return { claimed, ...(await this.matchAndStore(up, mType, payload, message, claimed.copy.correlation_ids, ctx)) };
    });
    if (!handled) {
      nsDataUplinks.inc({ result: 'duplicate' });
      return {};
    }
    // The GS has its answer once the uplink is stored: the merge window is waiting (for other GS
    // replicas' copies), not work, and the GS bounds the calls it has in flight by the work they make.
    const task = this.afterStore(handled, up, mType, payload, message).finally(() => this.forwarding.delete(task));
    this.forwarding.add(task);
    return {};
  }

  /** Steps 4 and 5, in the background: the merge window, the merged metadata's events, the receive windows and the AS. */
  private async afterStore(handled: StoredUplink, up: UplinkMessage, mType: string, payload: MACPayload, message: ReceivedUplink): Promise<void> {
    const { claimed, match, stored, eventCtx, ids, fullFrame } = handled;
    const devAddr = payload.f_hdr.dev_addr;
    const merged = await this.copies.merged(claimed, DATA_DEDUP);
    const mergedCtx = mergedContext(eventCtx, merged);
    this.events.publish(NS_EVENTS.mergeMetadata, ids, { ctx: mergedCtx, data: merged.gateway_count });
    for (const { event, data } of stored.macEvents) this.events.publish(event, ids, { ctx: mergedCtx, data });
    const processed = { ...fullFrame, rx_metadata: merged.rx_metadata, correlation_ids: mergedCtx.correlation_ids };
    this.events.publish(NS_EVENTS.dataProcess, ids, { ctx: mergedCtx, data: processed });
    nsDataUplinks.inc({ result: match.retransmission ? 'retransmission' : 'processed' });
    const answered = {
      confirmed: mType === 'CONFIRMED_UP',
      adr: payload.f_hdr.f_ctrl.adr,
      adr_ack_req: payload.f_hdr.f_ctrl.adr_ack_req ?? false,
      f_cnt: match.f_cnt,
      frequency: up.settings?.frequency ?? '',
      data_rate_index: match.data_rate_index,
      after_merge: stored.afterMerge,
      received_at: message.received_at,
    };
    await Promise.all([
      // The receive windows first: RX1 opens a second after the uplink.
      this.downlinks.classA(stored.device, answered, merged, mergedCtx),
      this.forward(match, devAddr, processed, payload, mType, stored.answered, mergedCtx),
    ]);
  }

  /**
   * Steps 2 and 3 (admitted: in one of the NS's work slots). The device this replica wrote last
   * with the frame's DevAddr is tried first, from memory (`storeOnKnown`); when it is not the
   * sender or no longer as written, the candidates are read from the store, as without it.
   */
  private async matchAndStore(
    up: UplinkMessage,
    mType: string,
    payload: MACPayload,
    message: ReceivedUplink,
    copyIds: string[],
    ctx: RpcContext,
  ): Promise<Omit<StoredUplink, 'claimed'>> {
    const eventCtx: RpcContext = { ...ctx, correlation_ids: [...new Set([...copyIds, ...ctx.correlation_ids])] };
    const onKnown = await this.storeOnKnown(up, payload, message);
    if (onKnown) return { ...onKnown, ...this.received(onKnown.match, mType, payload, message, eventCtx), eventCtx };
    const match = this.match(up, payload, await this.registry.bySessionDevAddr(payload.f_hdr.dev_addr));
    if (!match) {
      nsDataUplinks.inc({ result: 'no_match' });
      throw ErrDeviceNotFound.with({ device_uid: payload.f_hdr.dev_addr });
    }
    const { ids, fullFrame } = this.received(match, mType, payload, message, eventCtx);
    try {
      return { match, stored: await this.store(match, message, payload), eventCtx, ids, fullFrame };
    } catch (err) {
      nsDataUplinks.inc({ result: 'dropped' });
      if (isStackError(err)) this.events.publish(NS_EVENTS.dataDrop, ids, { ctx: eventCtx, data: err.toDetails() });
      throw err;
    }
  }

  /** `ns.up.data.receive` of a matched uplink; its device's identifiers as events carry them, and the frame as processed. */
  private received(match: MatchedUplink, mType: string, payload: MACPayload, message: ReceivedUplink, eventCtx: RpcContext) {
    const ids = { device_ids: { ...match.device.ids, dev_addr: payload.f_hdr.dev_addr } };
    const fullFrame = { ...message, payload: { m_hdr: { m_type: mType }, mac_payload: { f_port: payload.f_port, full_f_cnt: match.f_cnt } } };
    this.events.publish(NS_EVENTS.dataReceive, ids, { ctx: eventCtx, data: fullFrame });
    return { ids, fullFrame };
  }

  /**
   * Steps 2 and 3 without reading the store: the device this replica wrote last with the frame's
   * DevAddr (`lastWrittenBySessionDevAddr`), if its session's MIC holds, gets the uplink applied
   * and written in one statement, while the store still has it at the revision written
   * (`modifyIfUnchanged`). That check makes the device matched on exactly what a read would have
   * returned, so the match, the FCnt it recovered, the MAC commands decrypted with its keys and
   * `applyUplink` are what they would have been. Undefined, with nothing written and nothing
   * published, whenever that is not shown: no such device, not the sender (another device may
   * share the DevAddr), written since (another replica, a Set, a Delete), or `applyUplink` refusing
   * it (the read afresh decides what to report). The caller then matches and stores as without
   * it, so an outdated memory costs one statement and a MIC check, never a different outcome.
   */
  private async storeOnKnown(up: UplinkMessage, payload: MACPayload, message: ReceivedUplink) {
    const known = this.registry.lastWrittenBySessionDevAddr(payload.f_hdr.dev_addr);
    if (!known) return undefined;
    let match: MatchedUplink | undefined;
    let uplink: { uplink: DataUplink; context: UplinkContext };
    try {
      match = this.match(up, payload, [known]);
      if (!match) return undefined;
      uplink = this.uplinkOf(match, message, payload);
    } catch {
      return undefined; // E.g. a key this NS cannot open: whether the stored device has it, the read afresh shows.
    }
    const written = await this.registry.modifyIfUnchanged(known, (device) => {
      try {
        const applied = applyUplink(device, uplink.uplink, uplink.context);
        return { device: applied.device, result: applied };
      } catch {
        return undefined;
      }
    });
    return written && { match, stored: written.result };
  }

  /** The candidate that sent the frame and how (`matchSession`), in the candidates' order; undefined when none did. */
  private match(up: UplinkMessage, payload: MACPayload, candidates: readonly NsDevice[]): MatchedUplink | undefined {
    const settings = (up.settings ?? {}) as { frequency?: string; data_rate?: DataRate };
    for (const device of candidates) {
      const plan = getFrequencyPlan(device.frequency_plan_id ?? '');
      const dataRateIndex = plan && settings.data_rate ? dataRateIndexOf(plan.band_id, settings.data_rate) : undefined;
      if (dataRateIndex === undefined && plan) continue;
      const raw = Buffer.from(up.raw_payload ?? '', 'base64');
      // LoRaWAN 1.0.4 (TTS: not 1.1) ignores an uplink whose MACPayload is longer than its data rate allows.
      const version = device.mac_state?.lorawan_version ?? device.lorawan_version;
      // Under the uplink dwell-time limit only once TxParamSetupAns confirmed it (TTS `grpc_gsns.go`).
      const dwellTime = device.mac_state?.current_parameters?.uplink_dwell_time === true;
      const limit = plan && dataRateIndex !== undefined ? maxMacPayload(plan.band_id, dataRateIndex, dwellTime) : undefined;
      if (version === 'MAC_V1_0_4' && limit !== undefined && raw.length - 5 > limit) continue;
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

  /** Step 3: the device after the uplink (`applyUplink`), against what is stored now. */
  private async store(match: MatchedUplink, message: ReceivedUplink, payload: MACPayload): Promise<AppliedUplink> {
    const { ids } = match.device;
    const { uplink, context } = this.uplinkOf(match, message, payload);
    const key = { application_id: ids.application_ids.application_id, device_id: ids.device_id };
    return this.registry.modify(
      key,
      (device) => {
        const applied = applyUplink(device, uplink, context);
        return { device: applied.device, result: applied };
      },
      // The device as the match read it: written at once, unless another write came in between.
      { read: match.device },
    );
  }

  /** What `applyUplink` gets besides the device: the matched uplink with its MAC commands, and the device's plan and the NS's settings. */
  private uplinkOf(match: MatchedUplink, message: ReceivedUplink, payload: MACPayload): { uplink: DataUplink; context: UplinkContext } {
    return {
      uplink: { match, message, payload, commands: this.macCommands(match, payload) },
      context: { plan: getFrequencyPlan(match.device.frequency_plan_id ?? ''), recentUplinks: this.recentUplinks, macDefaults: this.macDefaults },
    };
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
    processed: ProcessedUplink,
    payload: MACPayload,
    mType: string,
    answered: AppliedUplink['answered'],
    ctx: RpcContext,
  ): Promise<void> {
    const ids = { ...match.device.ids, dev_addr: devAddr };
    const ups: NsApplicationUp[] = [];
    if (answered)
      ups.push({ end_device_ids: ids, correlation_ids: ctx.correlation_ids, [answered.acked ? 'downlink_ack' : 'downlink_nack']: answered.downlink });
    // FPort 0 (MAC commands only) and frames without FPort stay in the NS; a retransmission was forwarded the first time.
    const forwardUplink = Boolean(payload.f_port) && !match.retransmission;
    if (forwardUplink) ups.push(this.applicationUplink(match, ids, processed, payload, mType, ctx));
    if (ups.length === 0) return;
    if (!(await this.applicationUplinks.send(ups, ctx, { device_id: ids.device_id, what: 'uplink' }))) return;
    if (forwardUplink) this.events.publish(NS_EVENTS.dataForward, { device_ids: ids }, { ctx, data: ups[ups.length - 1] });
  }

  private applicationUplink(
    match: SessionMatch,
    ids: NsDevice['ids'],
    processed: ProcessedUplink,
    payload: MACPayload,
    mType: string,
    ctx: RpcContext,
  ): NsApplicationUp {
    return {
      end_device_ids: ids,
      correlation_ids: ctx.correlation_ids,
      uplink_message: {
        session_key_id: match.session.keys?.session_key_id,
        f_port: payload.f_port,
        f_cnt: match.f_cnt,
        frm_payload: payload.frm_payload.toString('base64'),
        rx_metadata: processed.rx_metadata,
        settings: asStruct(processed.settings),
        received_at: processed.received_at,
        ...(mType === 'CONFIRMED_UP' ? { confirmed: true } : {}),
        ...(processed.consumed_airtime ? { consumed_airtime: processed.consumed_airtime } : {}),
      },
    };
  }
}
