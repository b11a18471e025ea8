import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type AsNsDownlinkQueueRequest,
  DOWNLINK_QUEUE_OPERATION_ERROR_DETAILS_TYPE,
  type DownlinkQueueOperationErrorDetails,
  type EndDeviceIdentifiers,
  newUlid,
  plainJson,
  type ResponseOf,
} from '@lorawan/api';
import type { TypedDetail } from '@lorawan/errors';
import { getFrequencyPlan, largestFrmPayload } from '@lorawan/lorawan';
import { DeviceRegistry } from '@lorawan/registry';
import { ErrFrequencyPlanNotFound } from '../errors';
import { expectedDownlinkDwellTime } from '../mac-state/dwell-time';
import type { NsDevice, NsMacState, NsSession, QueuedDownlink } from '../model';
import { DataDownlinkService } from './data-downlink.service';
import {
  ErrApplicationDownlinkTooLong,
  ErrConfirmedMulticastDownlink,
  ErrDownlinkQueueCapacity,
  ErrFCntTooLow,
  ErrUnknownMACState,
  ErrUnknownSession,
} from './downlink-queue.errors';

/** How many downlinks the NS queues per session (TTS `networkserver.Config.DownlinkQueueCapacity` default). */
export const DOWNLINK_QUEUE_CAPACITY = 10000;

/** What the downlink counters of a session depend on. */
type QueueSession = Pick<NsSession, 'last_n_f_cnt_down' | 'last_a_f_cnt_down' | 'queued_application_downlinks'>;
/** The fields of a recorded downlink's frame (`DownlinkMessage.payload`) the counters depend on. */
interface RecordedFrame {
  m_hdr?: { m_type?: string };
  mac_payload?: { f_port?: number; f_cnt?: number; full_f_cnt?: number };
}
type Empty = Record<string, never>;

/**
 * The Network Server's application downlink queue (TTS `grpc_asns.go` DownlinkQueuePush,
 * DownlinkQueueReplace, DownlinkQueueList): the AS hands downlinks it encrypted for a session,
 * each with that session's FCnt; the NS keeps them in that session's `queued_application_downlinks`
 * (the device's `session`, or its `pending_session` until the device's first uplink in it), where
 * the class A downlink takes its head from. Replace empties both queues first.
 *
 * TTS's checks (matchQueuedApplicationDownlinks), all or nothing: each downlink belongs to the
 * current or the pending session by `session_key_id` (else `unknown_session`); that session has a
 * MAC state (`unknown_mac_state`); its FRMPayload fits the band's largest data rate
 * (`application_downlink_too_long`); its FCnt is at least the session's next downlink FCnt and
 * above the one queued before it (`f_cnt_too_low`); a multicast device takes no confirmed
 * downlink. A refusal for the session or the FCnt carries DownlinkQueueOperationErrorDetails (each
 * session's DevAddr, session key ID and lowest acceptable FCnt), from which the AS encrypts again.
 * At most DOWNLINK_QUEUE_CAPACITY per session (twice that per request), else
 * `downlink_queue_capacity`. The device is written under the registry's optimistic concurrency, so
 * two operations (or an operation and a downlink taking the head) never lose each other's change.
 * TTS publishes no event for these operations; neither does this.
 *
 * Not checked here (class B/C and multicast scheduling do not exist yet): the gateways and
 * absolute time of `class_b_c`; the band's dwell-time payload limits.
 */
@Injectable()
export class NsDownlinkQueue {
  private readonly logger = new Logger('NsDownlinkQueue');
  constructor(
    @Inject(DeviceRegistry) private readonly registry: DeviceRegistry<NsDevice>,
    private readonly downlinks: DataDownlinkService,
  ) {}

  push(req: AsNsDownlinkQueueRequest): Promise<Empty> {
    const downlinks = requestDownlinks(req);
    if (downlinks.length === 0) return Promise.resolve({});
    return this.operate(req.end_device_ids, downlinks, false);
  }

  replace(req: AsNsDownlinkQueueRequest): Promise<Empty> {
    return this.operate(req.end_device_ids, requestDownlinks(req), true);
  }

  /** Both sessions' queues, the current session's first (`{}` when empty). */
  async list(ids: EndDeviceIdentifiers): Promise<ResponseOf<'AsNs.DownlinkQueueList'>> {
    const device = await this.registry.stored({ application_id: ids.application_ids.application_id, device_id: ids.device_id });
    const downlinks = [...(device.session?.queued_application_downlinks ?? []), ...(device.pending_session?.queued_application_downlinks ?? [])];
    return downlinks.length ? { downlinks } : {};
  }

  private async operate(ids: EndDeviceIdentifiers, downlinks: QueuedDownlink[], replace: boolean): Promise<Empty> {
    await this.registry.modify({ application_id: ids.application_ids.application_id, device_id: ids.device_id }, (device) => {
      if (replace) {
        if (device.session) delete device.session.queued_application_downlinks;
        if (device.pending_session) delete device.pending_session.queued_application_downlinks;
      }
      queueDownlinks(device, downlinks);
      for (const session of [device.session, device.pending_session]) {
        if ((session?.queued_application_downlinks?.length ?? 0) > DOWNLINK_QUEUE_CAPACITY) throw ErrDownlinkQueueCapacity.with();
        if (session?.queued_application_downlinks?.length === 0) delete session.queued_application_downlinks;
      }
      return { device, result: undefined };
    });
    // A class B or C device need not be waited for: its queue goes out now (in the background: the AS has its answer).
    // Its events carry the queued items' own correlation IDs (the AS's `as:downlink:`).
    void this.downlinks
      .classBC({ application_id: ids.application_ids.application_id, device_id: ids.device_id }, { request_id: newUlid(), correlation_ids: [] })
      .catch((err: Error) => this.logger.warn({ device_id: ids.device_id, error: err.message }, 'class B/C downlink not sent'));
    return {};
  }
}

/** The request's downlinks as JSON; more than two queues' worth is refused before the device is read. */
function requestDownlinks(req: AsNsDownlinkQueueRequest): QueuedDownlink[] {
  const downlinks = req.downlinks ?? [];
  if (downlinks.length > 2 * DOWNLINK_QUEUE_CAPACITY) throw ErrDownlinkQueueCapacity.with();
  return downlinks.map((d) => plainJson(d));
}

/** TTS matchQueuedApplicationDownlinks: the downlinks added to their sessions' queues, or the refusal. */
function queueDownlinks(device: NsDevice, downlinks: QueuedDownlink[]): void {
  if (downlinks.length === 0) return;
  const plan = device.frequency_plan_id ? getFrequencyPlan(device.frequency_plan_id) : undefined;
  if (!plan) throw ErrFrequencyPlanNotFound.with({ id: device.frequency_plan_id ?? '' });
  const maxLength = largestFrmPayload(plan.band_id, expectedDownlinkDwellTime(device.mac_state, plan));
  const version = device.lorawan_version;
  const minCurrent = minFCntDown(device.session, device.mac_state, device.mac_state?.lorawan_version ?? version);
  const minPending = minFCntDown(device.pending_session, device.pending_mac_state, device.pending_mac_state?.lorawan_version ?? version);
  const details = (): TypedDetail => operationDetails(device, minCurrent, minPending);
  const rules = { multicast: device.multicast === true, maxLength, details };
  let unmatched = matchSession(device.session, device.mac_state, minCurrent, rules, downlinks);
  unmatched = matchSession(device.pending_session, device.pending_mac_state, minPending, rules, unmatched);
  if (unmatched.length > 0) throw ErrUnknownSession.with().withDetails(details());
}

interface MatchRules {
  multicast: boolean;
  maxLength: number;
  details: () => TypedDetail;
}

/** TTS matchApplicationDownlinks: queues the downlinks of `session` (checked in order); returns the others. */
function matchSession(
  session: NsSession | undefined,
  macState: NsMacState | undefined,
  minFCnt: number,
  rules: MatchRules,
  downlinks: QueuedDownlink[],
): QueuedDownlink[] {
  if (!session) return downlinks;
  const sessionKeyId = session.keys?.session_key_id ?? '';
  const mine = downlinks.filter((d) => (d.session_key_id ?? '') === sessionKeyId);
  const others = downlinks.filter((d) => (d.session_key_id ?? '') !== sessionKeyId);
  if (mine.length === 0) return others;
  if (!macState) throw ErrUnknownMACState.with();
  let min = minFCnt;
  const queue = [...(session.queued_application_downlinks ?? [])];
  for (const down of mine) {
    const length = Buffer.from(down.frm_payload ?? '', 'base64').length;
    const fCnt = down.f_cnt ?? 0;
    if (length > rules.maxLength) throw ErrApplicationDownlinkTooLong.with({ length, max: rules.maxLength });
    if (fCnt < min) throw ErrFCntTooLow.with({ f_cnt: fCnt, min_f_cnt: min }).withDetails(rules.details());
    if (rules.multicast && down.confirmed) throw ErrConfirmedMulticastDownlink.with();
    min = fCnt + 1;
    queue.push(down);
  }
  session.queued_application_downlinks = queue;
  return others;
}

/**
 * The lowest FCnt an application downlink of the session may have (TTS `minAFCntDown`). LoRaWAN
 * 1.0.x shares one FCntDown between the NS and the AS: above every downlink counter used (the
 * session's last NFCntDown and AFCntDown, the recent downlinks). 1.1: above the last application
 * downlink (FPort > 0) since the join. Either way above the last one queued.
 */
export function minFCntDown(
  session: QueueSession | undefined,
  macState: Pick<NsMacState, 'recent_downlinks'> | undefined,
  version: string | undefined,
): number {
  if (!session || !macState) return 0;
  // The contract keeps a recorded downlink's frame as a Struct: these are the fields the NS writes there (`DataDownlinkService`).
  const recent = (macState.recent_downlinks ?? []).map((d) => ({ payload: d.payload as RecordedFrame | undefined }));
  let min = 0;
  if (version !== 'MAC_V1_1') {
    const last = Math.max(session.last_n_f_cnt_down ?? 0, session.last_a_f_cnt_down ?? 0, ...recent.map((d) => fullFCntOf(d.payload?.mac_payload)));
    if (last > 0 || recent.length > 0) min = last + 1;
  } else {
    if ((session.last_a_f_cnt_down ?? 0) > 0) min = (session.last_a_f_cnt_down as number) + 1;
    for (let i = recent.length - 1; i >= 0; i--) {
      const payload = recent[i].payload;
      if (payload?.m_hdr?.m_type === 'JOIN_ACCEPT') break;
      if ((payload?.mac_payload?.f_port ?? 0) > 0) {
        min = Math.max(min, fullFCntOf(payload?.mac_payload) + 1);
        break;
      }
    }
  }
  const queued = session.queued_application_downlinks ?? [];
  const last = queued[queued.length - 1]?.f_cnt;
  if (last !== undefined && last >= min) min = last + 1;
  return min;
}

function fullFCntOf(macPayload: { f_cnt?: number; full_f_cnt?: number } | undefined): number {
  return macPayload?.full_f_cnt ?? macPayload?.f_cnt ?? 0;
}

/** DownlinkQueueOperationErrorDetails of the device (zero values omitted, as TTS's JSON). */
function operationDetails(device: NsDevice, minCurrent: number, minPending: number): TypedDetail {
  const details: DownlinkQueueOperationErrorDetails = {};
  const { session, pending_session: pending } = device;
  if (session) {
    if (session.dev_addr) details.dev_addr = session.dev_addr;
    if (session.keys?.session_key_id) details.session_key_id = session.keys.session_key_id;
    if (minCurrent) details.min_f_cnt_down = minCurrent;
  }
  if (pending) {
    if (pending.dev_addr) details.pending_dev_addr = pending.dev_addr;
    if (pending.keys?.session_key_id) details.pending_session_key_id = pending.keys.session_key_id;
    if (minPending) details.pending_min_f_cnt_down = minPending;
  }
  return { '@type': DOWNLINK_QUEUE_OPERATION_ERROR_DETAILS_TYPE, ...details };
}
