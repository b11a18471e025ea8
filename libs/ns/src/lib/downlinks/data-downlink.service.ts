import { Injectable, Logger } from '@nestjs/common';
import { newUlid, NS_EVENTS, nowTimestamp, type RpcContext, type ScheduleDownlinkRequest } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { isStackError } from '@lorawan/errors';
import { classARxWindows, dataRate, getFrequencyPlan, type RxWindow } from '@lorawan/lorawan';
import { DeviceRegistry } from '@lorawan/registry';
import { ErrNoDownlinkPath } from '../errors';
import { downlinkPaths, type MergedUplink } from '../uplinks/merged-uplink';
import type { NsDataDevice, NsSession } from '../uplinks/session-match';
import { dataDownlinkFrame } from './data-downlink-frame';
import { GatewayDownlinks } from './gateway-downlinks.service';

/** How many downlinks the MAC state keeps (`recent_downlinks`). */
export const RECENT_DOWNLINKS = 20;
/** FHDR without FOpts (7) and FPort (1): what a MACPayload holds besides the FRMPayload. */
const MAC_PAYLOAD_OVERHEAD = 8;

/** A queued application downlink as the NS keeps it (TTS `ApplicationDownlink`, FRMPayload encrypted by the AS). */
export interface QueuedDownlink {
  session_key_id?: string;
  f_port?: number;
  f_cnt?: number;
  frm_payload?: string;
  confirmed?: boolean;
  priority?: string;
  correlation_ids?: string[];
}

/** What the class A downlink needs to know of the uplink it answers. */
export interface AnsweredUplink {
  confirmed: boolean;
  adr: boolean;
  adr_ack_req: boolean;
  /** Full FCnt (1.1: acknowledged in the downlink's MIC). */
  f_cnt: number;
  frequency: string;
  data_rate_index: number;
}

type Json = Record<string, unknown>;
type QueueSession = NsSession & { queued_application_downlinks?: QueuedDownlink[]; last_n_f_cnt_down?: number };

/**
 * Class A data downlinks (TTS `downlink.go` attemptClassADataDownlink, dataplane-notes §5.6 step 4):
 * after an uplink, the head of the session's queue (or, for a confirmed uplink or ADRACKReq, an
 * empty frame that carries the ACK) goes out in the uplink's RX1 or RX2, through the gateway that
 * heard it best: RX1 on the band's RX1 channel at the RX1 data rate with the device's RX1 DR offset
 * and RX1 delay, RX2 on the device's RX2 channel a second later. A payload too long for a window's
 * data rate leaves that window out (too long for both, it stays queued). FCntDown: the AS's for
 * application downlinks, else the next NFCntDown (1.0.x: one counter shared with the AS, kept in
 * `last_n_f_cnt_down`). Once a GS took
 * it, the item leaves the queue (a confirmed one waits in `pending_application_downlink` for the
 * device's ACK), the counters move on, `rx_windows_available` is cleared and `recent_downlinks`
 * keeps it. Events: `ns.down.data.schedule.attempt`, `.success` or `.fail`.
 */
@Injectable()
export class DataDownlinkService {
  private readonly logger = new Logger('DataDownlinks');

  constructor(
    private readonly registry: DeviceRegistry,
    private readonly downlinks: GatewayDownlinks,
    private readonly events: EventPublisher,
  ) {}

  async classA(device: NsDataDevice, uplink: AnsweredUplink, merged: MergedUplink, ctx: RpcContext): Promise<void> {
    const session = device.session as QueueSession | undefined;
    const macState = device.mac_state as (Json & { lorawan_version?: string; current_parameters?: Json }) | undefined;
    const plan = getFrequencyPlan(device.frequency_plan_id ?? '');
    if (!session?.dev_addr || !macState || !plan) return;
    const queue = (session.queued_application_downlinks ?? []).filter((d) => !d.session_key_id || d.session_key_id === session.keys?.session_key_id);
    const item = queue[0];
    const ack = uplink.confirmed;
    if (!item && !ack && !uplink.adr_ack_req) return;
    const params = macState.current_parameters ?? {};
    const { rx1, rx2 } = classARxWindows(
      plan,
      { frequency: uplink.frequency, data_rate_index: uplink.data_rate_index },
      {
        rx1Delay: (params.rx1_delay as number | undefined) || undefined,
        rx1DataRateOffset: (params.rx1_data_rate_offset as number | undefined) ?? 0,
        rx2:
          params.rx2_frequency !== undefined && params.rx2_data_rate_index !== undefined
            ? { frequency: String(params.rx2_frequency), data_rate_index: params.rx2_data_rate_index as number }
            : undefined,
      },
    );
    const payload = item?.frm_payload ? Buffer.from(item.frm_payload, 'base64') : Buffer.alloc(0);
    const fits = (w: RxWindow | undefined) =>
      w !== undefined && MAC_PAYLOAD_OVERHEAD + payload.length <= (dataRate(plan.band_id, w.data_rate_index)?.max_mac_payload ?? 0);
    const windows = { rx1: fits(rx1) ? rx1 : undefined, rx2: fits(rx2) ? rx2 : undefined };
    const ids = { device_ids: device.ids };
    if (!windows.rx1 && !windows.rx2) {
      this.logger.debug?.({ device_id: device.ids.device_id, length: payload.length }, 'downlink too long for the receive windows: stays queued');
      return;
    }
    const version = macState.lorawan_version ?? device.lorawan_version ?? 'MAC_V1_0_3';
    const key = session.keys?.s_nwk_s_int_key ?? session.keys?.f_nwk_s_int_key;
    const micKey = key ? this.registry.openKey(key).key : undefined;
    if (!micKey) return;
    // 1.0.x shares one FCntDown between the NS and the AS (TTS keeps it in `last_n_f_cnt_down`); 1.1's NFCntDown is the NS's own.
    const fCnt = item?.f_cnt ?? (session.last_n_f_cnt_down ?? -1) + 1;
    const raw = dataDownlinkFrame(
      {
        confirmed: item?.confirmed ?? false,
        dev_addr: session.dev_addr,
        adr: uplink.adr,
        ack,
        f_pending: queue.length > 1,
        f_cnt: fCnt,
        f_port: item?.f_port,
        frm_payload: item ? payload : undefined,
      },
      { lorawan_version: version, key: micKey, conf_f_cnt: uplink.f_cnt },
    );
    const correlationIds = [...new Set([...ctx.correlation_ids, ...(item?.correlation_ids ?? []), `ns:downlink:${newUlid()}`])];
    const downlink = {
      raw_payload: raw.toString('base64'),
      end_device_ids: device.ids,
      request: {
        class: 'CLASS_A',
        rx1_delay: rx1?.delay ?? 1,
        ...(windows.rx1 ? { rx1_data_rate: windows.rx1.data_rate, rx1_frequency: windows.rx1.frequency } : {}),
        ...(windows.rx2 ? { rx2_data_rate: windows.rx2.data_rate, rx2_frequency: windows.rx2.frequency } : {}),
        priority: item?.priority ?? 'NORMAL',
        frequency_plan_id: plan.id,
      },
      correlation_ids: correlationIds,
      ...(session.keys?.session_key_id ? { session_key_id: session.keys.session_key_id } : {}),
    } as unknown as Omit<ScheduleDownlinkRequest, 'request'> & { request: Omit<ScheduleDownlinkRequest['request'], 'downlink_paths'> };
    const eventCtx = { ...ctx, correlation_ids: correlationIds };
    this.events.publish(NS_EVENTS.dataScheduleAttempt, ids, { ctx: eventCtx, data: downlink });
    try {
      const scheduled = await this.downlinks.schedule(downlink, downlinkPaths(merged.rx_metadata), eventCtx);
      this.events.publish(NS_EVENTS.dataScheduleSuccess, ids, { ctx: eventCtx, data: scheduled });
    } catch (err) {
      const error = isStackError(err) ? err : ErrNoDownlinkPath.with();
      this.events.publish(NS_EVENTS.dataScheduleFail, ids, { ctx: eventCtx, data: error.toDetails() });
      return;
    }
    await this.sent(device, item, fCnt, version, correlationIds).catch((err: Error) =>
      this.logger.warn({ device_id: device.ids.device_id, error: err.message }, 'downlink sent, device not updated'),
    );
  }

  /** The device after a scheduled downlink (see above). */
  private async sent(device: NsDataDevice, item: QueuedDownlink | undefined, fCnt: number, version: string, correlationIds: string[]): Promise<void> {
    const { ids } = device;
    await this.registry.modify({ application_id: ids.application_ids.application_id, device_id: ids.device_id }, (stored) => {
      const next = stored as NsDataDevice & Json;
      const session = { ...(next.session as QueueSession) };
      const macState = { ...((next.mac_state ?? {}) as Json) };
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
      macState.rx_windows_available = false;
      macState.last_downlink_at = now;
      // TTS's shape (a Message): what the TX acknowledgment needs to tell the AS which downlink went out.
      const recent = {
        payload: {
          m_hdr: { m_type: item?.confirmed ? 'CONFIRMED_DOWN' : 'UNCONFIRMED_DOWN' },
          mac_payload: { f_hdr: { f_cnt: fCnt }, ...(item ? { f_port: item.f_port, frm_payload: item.frm_payload } : {}) },
        },
        correlation_ids: correlationIds,
        ...(item?.session_key_id ? { session_key_id: item.session_key_id } : {}),
      };
      macState.recent_downlinks = [...((macState.recent_downlinks as Json[] | undefined) ?? []), recent].slice(-RECENT_DOWNLINKS);
      return { device: { ...next, session, mac_state: macState }, result: undefined };
    });
  }
}
