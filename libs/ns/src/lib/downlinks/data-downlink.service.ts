import { Inject, Injectable, Logger } from '@nestjs/common';
import { type DownlinkMessage, newUlid, NS_EVENTS, nowTimestamp, type RpcContext, type TxRequest } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { isStackError } from '@lorawan/errors';
import { encryptFOpts, encryptFrmPayload } from '@lorawan/crypto';
import {
  beaconTimeBefore,
  dataRate,
  encodeMacCommands,
  getBand,
  type FrequencyPlan,
  getFrequencyPlan,
  gpsMsToUtc,
  maxFrmPayload,
  nextPingSlot,
  pingSlotFrequency,
  utcToGpsMs,
} from '@lorawan/lorawan';
import { DeviceRegistry } from '@lorawan/registry';
import { ApplicationUplinks, type NsApplicationUp } from '../application-uplinks/application-uplinks.service';
import { ErrNoDownlinkPath } from '../errors';
import { downlinkPaths, type MergedUplink } from '../uplinks/merged-uplink';
import { expectedDownlinkDwellTime, expectedUplinkDwellTime } from '../mac-state/dwell-time';
import { classADataWindows, type DataRxWindow } from './class-a-windows';
import { dataDownlinkFrame } from './data-downlink-frame';
import { ErrUnknownSession } from './downlink-queue.errors';
import { answerAfterMerge } from '../mac/after-merge';
import { downlinkCommands } from '../mac/downlink-commands';
import { macDraft, type MacEvent } from '../mac/mac-draft';
import { NS_MAC_DEFAULTS } from '../mac/mac-defaults';
import { effectiveMacSettings, useAdr } from '../mac/mac-settings';
import type { MacCommandJson } from '@lorawan/lorawan';
import { asStruct, type NsDevice, type NsMacSettings, type NsMacState, type NsSession, type QueuedDownlink } from '../model';
import { type DownlinkToSchedule, GatewayDownlinks } from './gateway-downlinks.service';

/** How many queued downlinks one class B/C call sends at most (the next change of the queue sends more). */
const CLASS_BC_BURST = 16;
/** A class B downlink goes in a ping slot at least this far ahead: the GS needs it before its scheduling margin. */
const CLASS_B_LEAD_MS = 1000;

export type { QueuedDownlink } from '../model';

/** The TxRequest of a downlink, before the gateway's path is added (`GatewayDownlinks`). */
type PathlessTxRequest = Omit<TxRequest, 'downlink_paths'>;
/** TTS's Message of a downlink (MHDR, FHDR with the full FCnt, FPort, FRMPayload): recorded and handed back with the TX acknowledgment. */
type DownlinkFrame = NonNullable<DownlinkMessage['payload']>;

/** What the class A downlink needs to know of the uplink it answers. */
export interface AnsweredUplink {
  confirmed: boolean;
  adr: boolean;
  adr_ack_req: boolean;
  /** Full FCnt (1.1: acknowledged in the downlink's MIC). */
  f_cnt: number;
  frequency: string;
  data_rate_index: number;
  /** The device's LinkCheckReq and DeviceTimeReq, answered with every copy's metadata. */
  after_merge?: MacCommandJson[];
  received_at?: string;
}

/** The MAC commands a class A downlink carries, and the MAC state to store once it went out. */
interface DownlinkMac {
  /** Encoded, before encryption. */
  bytes: Buffer;
  in_f_opts: boolean;
  state: NsMacState;
  events: MacEvent[];
  f_pending: boolean;
}

/**
 * Class A data downlinks (TTS `downlink.go` attemptClassADataDownlink, dataplane-notes §5.6 step 4):
 * after an uplink, the head of the session's queue (or, for a confirmed uplink or ADRACKReq, an
 * empty frame that carries the ACK) goes out in the uplink's RX1 or RX2, through the gateway that
 * heard it best: RX1 on the band's RX1 channel at the RX1 data rate with the device's RX1 DR offset
 * and RX1 delay, RX2 on the device's RX2 channel a second later. A payload too long for a window's
 * data rate leaves that window out (too long for both, it stays queued, and an ACK goes out without it). FCntDown: the AS's for
 * application downlinks, else the next NFCntDown (1.0.x: one counter shared with the AS, kept in
 * `last_n_f_cnt_down`). Once a GS took
 * it, the item leaves the queue (a confirmed one waits in `pending_application_downlink` for the
 * device's ACK), the counters move on, `rx_windows_available` is cleared and `recent_downlinks`
 * keeps it. Events: `ns.down.data.schedule.attempt`, `.success` or `.fail`.
 */
@Injectable()
export class DataDownlinkService {
  private readonly logger = new Logger('DataDownlinks');
  private readonly recentDownlinks: number;

  constructor(
    private readonly registry: DeviceRegistry<NsDevice>,
    private readonly downlinks: GatewayDownlinks,
    private readonly applicationUplinks: ApplicationUplinks,
    private readonly events: EventPublisher,
    @Inject(STACK_CONFIG) config: StackConfig,
    @Inject(NS_MAC_DEFAULTS) private readonly macDefaults: NsMacSettings,
  ) {
    this.recentDownlinks = config.ns.recentDownlinks;
  }

  async classA(device: NsDevice, uplink: AnsweredUplink, merged: MergedUplink, ctx: RpcContext): Promise<void> {
    const session = device.session;
    const macState = device.mac_state;
    const plan = getFrequencyPlan(device.frequency_plan_id ?? '');
    if (!session?.dev_addr || !macState || !plan) return;
    const queue = await this.usableQueue(device, ctx);
    const ack = uplink.confirmed;
    const { rx1, rx2 } = classADataWindows(plan, macState, uplink);
    const room = (w: DataRxWindow | undefined) => w?.max_frm_payload ?? 0;
    const settings = effectiveMacSettings(device.mac_settings, this.macDefaults);
    const mac = this.macCommands(device, macState, plan, settings, uplink, merged, Math.min(...[rx1, rx2].filter((w) => w !== undefined).map(room)));
    // MAC commands beyond FOpts' 15 bytes go alone, as an FPort 0 payload; the application downlink waits (TTS).
    let item: QueuedDownlink | undefined = mac.in_f_opts ? queue[0] : undefined;
    if (!item && !ack && !uplink.adr_ack_req && mac.bytes.length === 0) return;
    const length = (item?.frm_payload ? Buffer.from(item.frm_payload, 'base64').length : 0) + mac.bytes.length;
    const fits = (w: DataRxWindow | undefined) => w !== undefined && length <= room(w);
    let windows = { rx1: fits(rx1) ? rx1 : undefined, rx2: fits(rx2) ? rx2 : undefined };
    if (!windows.rx1 && !windows.rx2) {
      this.logger.debug?.({ device_id: device.ids.device_id, length }, 'downlink too long for the receive windows: stays queued');
      // The ACK, the answer to ADRACKReq and the MAC commands still go out, without it (FPending: the queue waits).
      if (!ack && !uplink.adr_ack_req && mac.bytes.length === 0) return;
      item = undefined;
      windows = { rx1, rx2 };
    }
    const request: PathlessTxRequest = {
      class: 'CLASS_A',
      rx1_delay: rx1?.delay ?? 1,
      ...(windows.rx1 ? { rx1_data_rate: windows.rx1.data_rate, rx1_frequency: windows.rx1.frequency } : {}),
      ...(windows.rx2 ? { rx2_data_rate: windows.rx2.data_rate, rx2_frequency: windows.rx2.frequency } : {}),
    };
    await this.send(device, { item, queue, ack, adr: useAdr(settings), confFCnt: uplink.f_cnt, mac }, request, downlinkPaths(merged.rx_metadata), ctx);
  }

  /**
   * The MAC commands of a class A downlink: the answers to the uplink (those that needed every copy
   * answered now), then the network's requests (`downlinkCommands`), in at most `room` bytes.
   */
  private macCommands(
    device: NsDevice,
    macState: NsMacState,
    plan: FrequencyPlan,
    settings: NsMacSettings,
    uplink: AnsweredUplink,
    merged: MergedUplink,
    room: number,
  ): DownlinkMac {
    const draft = macDraft(device, macState);
    const rate = dataRate(plan.band_id, uplink.data_rate_index)?.rate;
    answerAfterMerge(draft, uplink.after_merge ?? [], {
      rx_metadata: merged.rx_metadata,
      received_at: uplink.received_at ?? nowTimestamp(),
      lora: rate && 'lora' in rate ? rate.lora : undefined,
    });
    const commands = downlinkCommands(draft, {
      plan,
      settings,
      now: Date.now(),
      f_cnt_up: uplink.f_cnt,
      max_down: Number.isFinite(room) ? room : 0,
      max_up: maxFrmPayload(plan.band_id, uplink.data_rate_index, expectedUplinkDwellTime(macState, plan)),
    });
    const bytes = encodeMacCommands(commands.commands, 'downlink');
    return { bytes, in_f_opts: bytes.length <= 15, state: draft.state, events: draft.events, f_pending: commands.f_pending };
  }

  /**
   * Class B and C (TTS `downlink.go` attemptClassBCDataDownlink): no uplink to wait for. A class C
   * device listens on RX2 whenever it is not transmitting, so the queue head goes out at once, on
   * the device's RX2 channel and data rate. A class B device listens in its ping slots (the class B
   * specification: beacon-synchronised, `ping_slot_periodicity`, the ping-slot data rate and
   * frequency of its MAC state or the band), so each downlink goes out at the next ping slot,
   * timed in GPS time by a gateway that reports it. Both go through the gateways that heard the
   * device's latest uplink. Called when the queue changes; it sends the queue one downlink at a time.
   */
  async classBC(ids: { application_id: string; device_id: string }, ctx: RpcContext): Promise<void> {
    let after = utcToGpsMs(new Date()) + CLASS_B_LEAD_MS;
    for (let sent = 0; sent < CLASS_BC_BURST; sent++) {
      const device = await this.registry.stored(ids);
      const session = device.session;
      const macState = device.mac_state;
      const plan = getFrequencyPlan(device.frequency_plan_id ?? '');
      const deviceClass = macState?.device_class;
      const classC = deviceClass === 'CLASS_C' && device.supports_class_c;
      const classB = deviceClass === 'CLASS_B' && device.supports_class_b;
      if (!(classB || classC) || !session?.dev_addr || !macState || !plan) return;
      const queue = await this.usableQueue(device, ctx);
      const item = queue[0];
      if (!item) return;
      const params = macState.current_parameters ?? {};
      let request: PathlessTxRequest;
      let index: number;
      if (classC) {
        index = params.rx2_data_rate_index ?? plan.rx2.data_rate_index;
        request = { class: 'CLASS_C', rx2_frequency: String(params.rx2_frequency ?? plan.rx2.frequency) };
      } else {
        const settings = effectiveMacSettings(device.mac_settings, this.macDefaults);
        const periodicity = macState.ping_slot_periodicity ?? settings.ping_slot_periodicity;
        if (periodicity === undefined) return;
        const slot = nextPingSlot(session.dev_addr, periodicity, after);
        after = slot + 1;
        index = params.ping_slot_data_rate_index_value ?? getBand(plan.band_id).beacon_data_rate_index;
        const frequency = pingSlotFrequency(plan.band_id, session.dev_addr, Math.floor(beaconTimeBefore(slot) / 1000), params.ping_slot_frequency);
        request = { class: 'CLASS_B', absolute_time: gpsMsToUtc(slot).toISOString(), rx2_frequency: frequency };
      }
      const rate = dataRate(plan.band_id, index);
      const payload = item.frm_payload ? Buffer.from(item.frm_payload, 'base64') : Buffer.alloc(0);
      if (!rate || payload.length > maxFrmPayload(plan.band_id, index, expectedDownlinkDwellTime(macState, plan))) return;
      const latest = (macState.recent_uplinks ?? []).at(-1);
      const paths = downlinkPaths(latest?.rx_metadata ?? []);
      if (!(await this.send(device, { item, queue, ack: false, adr: false, networkInitiated: true }, { ...request, rx2_data_rate: rate.rate }, paths, ctx)))
        return;
    }
  }

  /**
   * The session's queue as it may go out (TTS `downlink.go` generateDataDownlink): a downlink of
   * another session than the device's (its session was replaced) is dropped, and the AS told
   * (`downlink_failed`, `unknown_session`); in LoRaWAN 1.0.x, where the NS and the AS share one
   * FCntDown, a queue whose head's FCnt is not above the last FCntDown used (a downlink without
   * application payload, e.g. an ACK, took it after the AS had queued) is stale from there: it
   * leaves the device and goes back to the AS (`downlink_queue_invalidated` with
   * `last_f_cnt_down`), which encrypts it again with new FCnts and pushes it.
   */
  private async usableQueue(device: NsDevice, ctx: RpcContext): Promise<QueuedDownlink[]> {
    const { session } = device;
    if (!session) return [];
    const sessionKeyId = session.keys?.session_key_id ?? '';
    const version = device.mac_state?.lorawan_version ?? device.lorawan_version;
    const last = session.last_n_f_cnt_down;
    const queue: QueuedDownlink[] = [];
    const failed: QueuedDownlink[] = [];
    let stale: QueuedDownlink[] = [];
    for (const [i, item] of (session.queued_application_downlinks ?? []).entries()) {
      if ((item.session_key_id ?? '') !== sessionKeyId) failed.push(item);
      else if (version !== 'MAC_V1_1' && last !== undefined && (item.f_cnt ?? 0) <= last && queue.length === 0) {
        stale = (session.queued_application_downlinks ?? []).slice(i).filter((d) => (d.session_key_id ?? '') === sessionKeyId);
        break;
      } else queue.push(item);
    }
    if (failed.length === 0 && stale.length === 0) return queue;
    const removed = [...failed, ...stale];
    const { ids } = device;
    const taken = await this.registry.modify({ application_id: ids.application_ids.application_id, device_id: ids.device_id }, (next) => {
      const current = next.session;
      // The session moved on meanwhile: its queue is the next downlink's business.
      if (!current || (current.keys?.session_key_id ?? '') !== sessionKeyId) return { device: next, result: false };
      const gone = (d: QueuedDownlink) => removed.some((r) => r.f_cnt === d.f_cnt && r.session_key_id === d.session_key_id);
      const left = (current.queued_application_downlinks ?? []).filter((d) => !gone(d));
      const changed: NsSession = { ...current, queued_application_downlinks: left };
      if (left.length === 0) delete changed.queued_application_downlinks;
      return { device: { ...next, session: changed }, result: true };
    });
    if (!taken) return [];
    const endDeviceIds = { ...ids, ...(session.dev_addr ? { dev_addr: session.dev_addr } : {}) };
    const ups: NsApplicationUp[] = failed.map((downlink) => ({
      end_device_ids: endDeviceIds,
      correlation_ids: [...ctx.correlation_ids, ...(downlink.correlation_ids ?? [])],
      downlink_failed: { downlink, error: asStruct(ErrUnknownSession.with().toDetails()) },
    }));
    if (stale.length > 0) {
      ups.push({
        end_device_ids: endDeviceIds,
        correlation_ids: ctx.correlation_ids,
        downlink_queue_invalidated: { downlinks: stale, last_f_cnt_down: last, ...(sessionKeyId ? { session_key_id: sessionKeyId } : {}) },
      });
    }
    await this.applicationUplinks.send(ups, ctx, { device_id: ids.device_id, what: 'invalidated downlink queue' });
    return stale.length > 0 ? [] : queue;
  }

  /**
   * Builds the frame (the queue head, or an empty one that carries an ACK), hands it to the
   * gateways (`ns.down.data.schedule.*`) and records it on the device. False when it did not go out.
   */
  private async send(
    device: NsDevice,
    frame: { item?: QueuedDownlink; queue: QueuedDownlink[]; ack: boolean; adr: boolean; confFCnt?: number; mac?: DownlinkMac; networkInitiated?: boolean },
    request: PathlessTxRequest,
    paths: ReturnType<typeof downlinkPaths>,
    ctx: RpcContext,
  ): Promise<boolean> {
    const { session, mac_state: macState } = device;
    const plan = getFrequencyPlan(device.frequency_plan_id ?? '');
    if (!session || !macState) return false;
    const { item } = frame;
    const version = macState.lorawan_version ?? device.lorawan_version ?? 'MAC_V1_0_3';
    const key = session.keys?.s_nwk_s_int_key ?? session.keys?.f_nwk_s_int_key;
    const micKey = key ? this.registry.openKey(key).key : undefined;
    if (!micKey || !plan || !session.dev_addr) return false;
    // 1.0.x shares one FCntDown between the NS and the AS (TTS keeps it in `last_n_f_cnt_down`); 1.1's NFCntDown is the NS's own.
    const fCnt = item?.f_cnt ?? (session.last_n_f_cnt_down ?? -1) + 1;
    const { mac } = frame;
    const macBytes = mac?.bytes ?? Buffer.alloc(0);
    const encKey = macBytes.length > 0 ? (session.keys?.nwk_s_enc_key ?? session.keys?.f_nwk_s_int_key) : undefined;
    const nwkSEncKey = encKey ? this.registry.openKey(encKey).key : undefined;
    if (macBytes.length > 0 && !nwkSEncKey) return false;
    const inFOpts = macBytes.length > 0 && (mac?.in_f_opts ?? true);
    const macPayload = macBytes.length > 0 && !inFOpts;
    const raw = dataDownlinkFrame(
      {
        confirmed: item?.confirmed ?? false,
        dev_addr: session.dev_addr,
        adr: frame.adr,
        ack: frame.ack,
        f_pending: frame.queue.length > (item ? 1 : 0) || (mac?.f_pending ?? false),
        f_cnt: fCnt,
        // 1.1 encrypts FOpts with the NwkSEncKey; a frame with an application payload is counted by AFCntDown (the errata's 0x02 keystream).
        f_opts: inFOpts
          ? version === 'MAC_V1_1'
            ? encryptFOpts(nwkSEncKey as string, session.dev_addr, fCnt, false, macBytes, item !== undefined)
            : macBytes
          : undefined,
        f_port: macPayload ? 0 : item?.f_port,
        frm_payload: macPayload
          ? encryptFrmPayload(nwkSEncKey as string, session.dev_addr, fCnt, false, macBytes)
          : item?.frm_payload
            ? Buffer.from(item.frm_payload, 'base64')
            : item
              ? Buffer.alloc(0)
              : undefined,
      },
      { lorawan_version: version, key: micKey, conf_f_cnt: frame.confFCnt },
    );
    const correlationIds = [...new Set([...ctx.correlation_ids, ...(item?.correlation_ids ?? []), `ns:downlink:${newUlid()}`])];
    // TTS's Message: recorded in the MAC state, and handed back with the TX acknowledgment to tell the AS which downlink went out.
    const message: DownlinkFrame = {
      m_hdr: { m_type: item?.confirmed ? 'CONFIRMED_DOWN' : 'UNCONFIRMED_DOWN' },
      mac_payload: { f_hdr: { f_cnt: fCnt }, ...(item ? { f_port: item.f_port, frm_payload: item.frm_payload } : macPayload ? { f_port: 0 } : {}) },
    };
    const downlink: DownlinkToSchedule = {
      raw_payload: raw.toString('base64'),
      payload: message,
      end_device_ids: device.ids,
      request: { ...request, priority: item?.priority ?? 'NORMAL', frequency_plan_id: plan.id },
      correlation_ids: correlationIds,
      ...(session.keys?.session_key_id ? { session_key_id: session.keys.session_key_id } : {}),
    };
    const ids = { device_ids: device.ids };
    const eventCtx = { ...ctx, correlation_ids: correlationIds };
    this.events.publish(NS_EVENTS.dataScheduleAttempt, ids, { ctx: eventCtx, data: downlink });
    try {
      const scheduled = await this.downlinks.schedule(downlink, paths, eventCtx);
      this.events.publish(NS_EVENTS.dataScheduleSuccess, ids, { ctx: eventCtx, data: scheduled });
    } catch (err) {
      const error = isStackError(err) ? err : ErrNoDownlinkPath.with();
      this.events.publish(NS_EVENTS.dataScheduleFail, ids, { ctx: eventCtx, data: error.toDetails() });
      return false;
    }
    for (const { event, data } of mac?.events ?? []) this.events.publish(event, ids, { ctx: eventCtx, data });
    try {
      await this.sent(device, item, fCnt, version, message, correlationIds, mac?.state, frame.networkInitiated);
    } catch (err) {
      this.logger.warn({ device_id: device.ids.device_id, error: (err as Error).message }, 'downlink sent, device not updated');
      return false;
    }
    return true;
  }

  /** The device after a scheduled downlink (see above). */
  private async sent(
    device: NsDevice,
    item: QueuedDownlink | undefined,
    fCnt: number,
    version: string,
    message: DownlinkFrame,
    correlationIds: string[],
    mac?: NsMacState,
    networkInitiated = false,
  ): Promise<void> {
    const { ids } = device;
    const key = { application_id: ids.application_ids.application_id, device_id: ids.device_id };
    await this.registry.modify(
      key,
      (next) => {
        // A scheduled downlink's device has its session and MAC state (`send`).
        const session = { ...(next.session as NsSession) };
        const macState = withoutAnswered(next.mac_state as NsMacState, mac);
        const now = nowTimestamp();
        if (item) {
          session.queued_application_downlinks = (session.queued_application_downlinks ?? []).filter(
            (d) => !(d.f_cnt === item.f_cnt && d.session_key_id === item.session_key_id),
          );
          if (item.confirmed) {
            macState.pending_application_downlink = item;
            macState.last_confirmed_downlink_at = now;
          }
        }
        if (!item || version !== 'MAC_V1_1') session.last_n_f_cnt_down = fCnt;
        if (mac?.pending_requests?.length) {
          macState.pending_requests = mac.pending_requests;
          macState.last_confirmed_downlink_at = now;
        }
        macState.rx_windows_available = false;
        macState.last_downlink_at = now;
        // Class B and C downlinks go out without an uplink to answer.
        if (networkInitiated) macState.last_network_initiated_downlink_at = now;
        const recent = {
          payload: message,
          correlation_ids: correlationIds,
          ...(item?.session_key_id ? { session_key_id: item.session_key_id } : {}),
        };
        macState.recent_downlinks = [...(macState.recent_downlinks ?? []), recent].slice(-this.recentDownlinks);
        return { device: { ...next, session, mac_state: macState }, result: undefined };
      },
      // The device as the uplink's write left it, unless something was written since.
      { read: device },
    );
  }
}

/**
 * A copy of the MAC state to record a downlink in: with MAC commands sent, without the answers it
 * carried (`queued_responses`, regenerated on each uplink) and, unless it asks new ones, without
 * `pending_requests` (regenerated on each downlink: the spec). Left out by destructuring, not
 * `delete`: V8 copies a deleted-from object slowly, and this one is copied on every uplink.
 */
function withoutAnswered(state: NsMacState, mac: NsMacState | undefined): NsMacState {
  if (!mac) return { ...state };
  const { queued_responses: _answered, ...rest } = state;
  if (mac.pending_requests?.length) return rest;
  const { pending_requests: _asked, ...fresh } = rest;
  return fresh;
}
