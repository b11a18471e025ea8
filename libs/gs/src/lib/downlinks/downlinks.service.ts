import { Injectable } from '@nestjs/common';
import { GS_EVENTS, type RpcContext, type ScheduleDownlinkRequest, type ScheduleDownlinkResponse, type TxRequest } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { isStackError, type StackError } from '@lorawan/errors';
import { gsDownlinks, gsDownlinksRefused } from '@lorawan/observability';
import { ErrFrequencyPlan, ErrGatewayNotConnected, ErrNoDownlinkPath, ErrUplinkToken } from '../errors';
import type { GatewayConnection, PendingDownlink } from '../connection/gateway-connection';
import type { PlannedDownlink } from '../scheduling/class-a-downlink';
import { planDownlink } from '../scheduling/plan-downlink';
import type { GatewayScheduler } from '../scheduling/scheduler';
import { decodeUplinkToken } from '../scheduling/uplink-token';
import { GatewayServerService } from '../server/gateway-server.service';

/**
 * `NsGs.ScheduleDownlink` (TTS `grpc_nsgs.go` ScheduleDownlink): the gateway the uplink token
 * names, if this replica holds it; the transmission planned by the downlink's class and booked in
 * the gateway's scheduler (`planDownlink`); handed to the gateway's frontend, on its downlink path.
 * `gs.down.schedule.attempt`, then `gs.down.send` or `gs.down.schedule.fail` with the reason (the
 * scheduler's: `too_late`, `conflict`, `duty_cycle`, `dwell_time`, `tx_schedule` for a class A
 * downlink no window could take, …), which the NS receives as the call's error and takes to the
 * next gateway of the downlink path. The gateways the NS names after this one (`next_paths`) come
 * back to it with the gateway's TX acknowledgment, with the frame and the request, so a downlink
 * the gateway refuses goes on to the next one; they are never published.
 */
@Injectable()
export class DownlinksService {
  constructor(
    private readonly gs: GatewayServerService,
    private readonly events: EventPublisher,
  ) {}

  /**
   * Sends the downlink on the gateway the uplink token names: class A in RX1 if the scheduler can
   * book it there, else RX2; class B at the request's absolute time, only through a gateway that
   * reports GPS time; class C at the earliest free moment.
   */
  schedule(request: ScheduleDownlinkRequest, ctx: RpcContext): ScheduleDownlinkResponse {
    const path = request.request.downlink_paths[0];
    const token = path ? decodeUplinkToken(path.uplink_token) : undefined;
    if (!token) throw ErrUplinkToken.with();
    const conn = this.gs.connection(token.eui);
    if (!conn) throw ErrGatewayNotConnected.with({ gateway_uid: token.gateway_id });
    const ids = { gateway_ids: conn.ids };
    const eventCtx = { ...ctx, correlation_ids: [...new Set([...(request.correlation_ids ?? []), ...ctx.correlation_ids])] };
    // Everything made of the request below goes out as JSON (events, the acknowledgment's RPC), which
    // writes the decoded request as its plain form would be written: no plain copy is made. The
    // gateways the NS may try next are its own business: handed back, never published.
    const { next_paths: nextPaths, ...message } = request;
    this.events.publish(GS_EVENTS.downScheduleAttempt, ids, { ctx: eventCtx, data: message });
    const fail = (err: StackError, refused = false): never => {
      gsDownlinks.inc({ result: 'failed' });
      if (refused) gsDownlinksRefused.inc({ by: 'scheduler', reason: err.toDetails().name });
      this.events.publish(GS_EVENTS.downScheduleFail, ids, { ctx: eventCtx, data: err.toDetails() });
      throw err;
    };
    // Every plan the gateway lists (one band): their channels and sub-bands together.
    const plan = conn.frequency_plan;
    if (!plan || !conn.scheduler) return fail(ErrFrequencyPlan.with({ gateway_uid: conn.ids.gateway_id }));
    if (!conn.hasDownlinkPath) return fail(ErrNoDownlinkPath.with({ gateway_uid: conn.ids.gateway_id }));
    const payload = Buffer.from(request.raw_payload, 'base64');
    const planned = planDownlink(payload, request.request, token, plan, conn.scheduler, conn.gps_time !== undefined);
    if (isStackError(planned)) return fail(planned, true);
    // What the NS needs to hear of the gateway's answer; with gateways left to try, all it needs to send the frame on.
    const acknowledged = {
      end_device_ids: message.end_device_ids,
      ...(message.payload ? { payload: message.payload } : {}),
      correlation_ids: eventCtx.correlation_ids,
      session_key_id: message.session_key_id,
      ...(nextPaths?.length ? { raw_payload: message.raw_payload, request: message.request, next_paths: nextPaths } : {}),
    };
    const sent = this.send(conn, planned, acknowledged, eventCtx, message);
    if (!sent) return fail(ErrNoDownlinkPath.with({ gateway_uid: conn.ids.gateway_id }));
    // A gateway that refuses it (its TX acknowledgment) gets it once more where that can still be:
    // a class A downlink refused in RX1 in RX2, a class C downlink at the next free moment.
    const retry = this.retryRequest(request.request, planned.window);
    if (retry)
      sent.retry = () => {
        const again = planDownlink(payload, retry, token, plan, conn.scheduler as GatewayScheduler, conn.gps_time !== undefined);
        return isStackError(again) ? undefined : this.send(conn, again, acknowledged, eventCtx, message);
      };
    return {
      delay: `${Math.max(0, planned.emission.delay_us) / 1_000_000}s`,
      downlink_path: { uplink_token: path.uplink_token },
      ...(planned.window === 'rx1' ? { rx1: true } : { rx2: true }),
    };
  }

  /** Hands a planned downlink to the gateway's frontend: `gs.down.send`; undefined (and off the books) when the gateway has no downlink path. */
  private send(
    conn: GatewayConnection,
    planned: PlannedDownlink,
    acknowledged: Record<string, unknown>,
    eventCtx: RpcContext,
    message: Omit<ScheduleDownlinkRequest, 'next_paths'>,
  ): PendingDownlink | undefined {
    const sent = conn.frontend.send(conn, planned, acknowledged);
    if (!sent) {
      conn.scheduler?.cancel(planned.emission);
      return undefined;
    }
    gsDownlinks.inc({ result: 'sent' });
    conn.stats.downlink();
    const scheduled = {
      data_rate: planned.data_rate,
      frequency: planned.frequency,
      ...(planned.timestamp !== undefined ? { timestamp: planned.timestamp } : {}),
      ...(planned.time !== undefined ? { time: planned.time } : {}),
      downlink: { tx_power: planned.eirp, invert_polarization: true, antenna_index: planned.emission.antenna_index },
    };
    const { request: _request, ...rest } = message;
    this.events.publish(
      GS_EVENTS.downSend,
      { gateway_ids: conn.ids },
      { ctx: eventCtx, data: { ...rest, scheduled, correlation_ids: eventCtx.correlation_ids } },
    );
    return sent;
  }

  /** The request to try once more after the gateway refused a downlink sent in `window`: class A's RX2 alone after RX1, class C again; else none. */
  private retryRequest(request: TxRequest, window: 'rx1' | 'rx2'): TxRequest | undefined {
    switch (request.class ?? 'CLASS_A') {
      case 'CLASS_A': {
        if (window !== 'rx1' || request.rx2_frequency === undefined) return undefined;
        const { rx1_frequency: _frequency, rx1_data_rate: _rate, ...rx2 } = request;
        return rx2;
      }
      case 'CLASS_C':
        return request;
      default:
        return undefined;
    }
  }
}
