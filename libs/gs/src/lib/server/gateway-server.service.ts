import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  gatewayDownlinkSubject,
  GS_EVENTS,
  newUlid,
  plainJson,
  RPCS,
  rpcPattern,
  type RpcContext,
  type ScheduleDownlinkRequest,
  type TxRequest,
} from '@lorawan/api';
import { COMPONENT_RPC_CLIENT, EventPublisher } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { Code, type ErrorDetails, isErrorDetails, isStackError, type StackError } from '@lorawan/errors';
import { type FrequencyPlan, getFrequencyPlan, parsePhyPayload } from '@lorawan/lorawan';
import { gsConnectedGateways, gsDatagramsDropped, gsDownlinks, gsUplinks, LogSampler, withLogFields } from '@lorawan/observability';
import { type PubSub, PUBSUB, type RpcClient, type SubjectRouter, SUBJECT_ROUTER, type Subscription } from '@lorawan/transport';
import {
  ErrConnectionExpired,
  ErrFrequencyPlan,
  ErrGatewayNotConnected,
  ErrInvalidPayload,
  ErrMessageCRC,
  ErrNoDownlinkPath,
  ErrNoNetworkServer,
  ErrServerStopped,
  ErrUplinkToken,
} from '../errors';
import { GatewayLookup, type GatewayResolution } from '../lookup/gateway-lookup';
import { watchGatewayRegistrations } from '../lookup/registration-watch';
import type { UplinkMessageJson } from '../udp/translation';
import { decodeUplinkToken, type UplinkToken } from '../udp/uplink-token';
import { planClassADownlink, planClassCDownlink } from './class-a-downlink';
import { planClassBDownlink } from './class-b-downlink';
import { UplinkCoalescer } from './uplink-coalescer';
import type { TxAckResult } from '../udp/packet-data';
import { type GatewayConnection, type PendingDownlink, UdpGatewayServer, type UdpHandlers } from '../udp/udp-server';

/** `NsGs.ScheduleDownlink`'s answer (TTS `ScheduleDownlinkResponse`). */
export interface ScheduleDownlinkResponseJson {
  /** How long until the gateway transmits. */
  delay: string;
  downlink_path: { uplink_token: string };
  rx1?: boolean;
  rx2?: boolean;
}

/** TTS's GS forwards an uplink when the NS answered, and drops it when the NS call failed with one of these. */
const DROP_CODES = new Set<number>([Code.Canceled, Code.DeadlineExceeded, Code.Unknown, Code.Internal, Code.Unimplemented, Code.Unavailable]);

/**
 * The Gateway Server: the Semtech UDP frontend on GS_UDP_PORT, gateways resolved by EUI through
 * the Identity Server (`GsIs.GetGatewayForEUI`), every received copy handed to the Network Server
 * (`GsNs.HandleUplink`), class A, B and C downlinks from the NS (`NsGs.ScheduleDownlink`, served on each
 * connected gateway's own subject so the NS reaches the replica holding its downlink path), and
 * TTS's events on the way: `gs.gateway.connect|disconnect`, `gs.up.receive`, `gs.up.forward` or
 * `gs.up.drop`, `gs.down.schedule.attempt`, `gs.down.send` or `gs.down.schedule.fail`,
 * `gs.status.receive`, `gs.txack.receive`. Each copy carries its own `gs:uplink:<ULID>`
 * correlation ID; copies of one frame from several gateways within GS_UPLINK_COALESCE_MS reach
 * the NS in one call (`UplinkCoalescer`), with every copy's metadata and correlation ID. Gateways
 * are looked up through `GatewayLookup` (unknown EUIs remembered, a bounded rate of lookups), which
 * forgets an unknown EUI when the IS registers a gateway with it; datagrams of gateways that are
 * not connected are dropped, counted by reason and logged at a sampled rate.
 */
@Injectable()
export class GatewayServerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('GatewayServer');
  private server?: UdpGatewayServer;
  /** The per-gateway `NsGs.ScheduleDownlink` subjects this replica serves, by gateway EUI. */
  private readonly routes = new Map<string, Subscription>();
  private readonly coalescer: UplinkCoalescer<ErrorDetails | undefined>;
  private readonly gateways: GatewayLookup;
  private registrations?: Subscription;
  /** Dropped datagrams are logged by reason, one line per 10 s each at most. */
  private readonly dropLog = new LogSampler();

  constructor(
    @Inject(STACK_CONFIG) private readonly config: StackConfig,
    @Inject(COMPONENT_RPC_CLIENT) private readonly rpc: RpcClient,
    @Inject(SUBJECT_ROUTER) private readonly router: SubjectRouter,
    @Inject(PUBSUB) private readonly pubsub: PubSub,
    private readonly events: EventPublisher,
  ) {
    this.coalescer = new UplinkCoalescer(config.gs.uplinkCoalesceMs, (message) => this.forward(message));
    const { unknownEuiCacheSize, unknownEuiCacheTtlMs, unknownEuiLookupsPerSec } = config.gs;
    this.gateways = new GatewayLookup(
      { unknownCacheSize: unknownEuiCacheSize, unknownCacheTtlMs: unknownEuiCacheTtlMs, lookupsPerSec: unknownEuiLookupsPerSec },
      (eui) => this.askIdentityServer(eui),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    const { udpPort, udpHost, requireRegisteredGateways, fallbackFrequencyPlan, udpReceiveBuffer } = this.config.gs;
    if (fallbackFrequencyPlan && !getFrequencyPlan(fallbackFrequencyPlan))
      throw new Error(`GS_FALLBACK_FREQUENCY_PLAN "${fallbackFrequencyPlan}" is not a frequency plan of the catalogue`);
    this.registrations = watchGatewayRegistrations(this.pubsub, (eui) => this.gateways.forget(eui));
    this.server = new UdpGatewayServer(
      { port: udpPort, host: udpHost, requireRegistered: requireRegisteredGateways, fallbackFrequencyPlan, receiveBuffer: udpReceiveBuffer },
      (eui) => this.gateways.lookup(eui),
      this.handlers(),
    );
    const port = await this.server.start();
    this.logger.log({ udp_port: port, receive_buffer: this.server.receiveBufferSize }, `Semtech UDP packet forwarders served on ${udpHost}:${port}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.registrations?.unsubscribe();
    await this.server?.stop();
  }

  /**
   * `NsGs.ScheduleDownlink`: sends the downlink on the gateway the uplink token names, as a
   * PULL_RESP on the gateway's downlink path: class A in RX1 if it can still make it, else RX2
   * (`planClassADownlink`); class B at the request's absolute time as `tmms`, only through a
   * gateway that reports GPS time (`planClassBDownlink`); class C at once (`planClassCDownlink`).
   */
  scheduleDownlink(request: ScheduleDownlinkRequest, ctx: RpcContext): ScheduleDownlinkResponseJson {
    const path = request.request.downlink_paths[0];
    const token = path ? decodeUplinkToken(path.uplink_token) : undefined;
    if (!token) throw ErrUplinkToken.with();
    const conn = this.server?.connection(token.eui);
    if (!conn) throw ErrGatewayNotConnected.with({ gateway_uid: token.gateway_id });
    const ids = { gateway_ids: conn.ids };
    const eventCtx = { ...ctx, correlation_ids: [...new Set([...(request.correlation_ids ?? []), ...ctx.correlation_ids])] };
    const message = plainJson(request);
    this.events.publish(GS_EVENTS.downScheduleAttempt, ids, { ctx: eventCtx, data: message });
    const fail = (err: StackError): never => {
      gsDownlinks.inc({ result: 'failed' });
      this.events.publish(GS_EVENTS.downScheduleFail, ids, { ctx: eventCtx, data: err.toDetails() });
      throw err;
    };
    const plan = getFrequencyPlan(conn.frequency_plan_ids[0] ?? '');
    if (!plan) return fail(ErrFrequencyPlan.with({ gateway_uid: conn.ids.gateway_id }));
    const now = Date.now();
    const payload = Buffer.from(request.raw_payload, 'base64');
    const planned = this.plan(payload, request.request, token, conn, plan, now);
    if (isStackError(planned)) return fail(planned);
    const acknowledged = {
      end_device_ids: message.end_device_ids,
      ...(message.payload ? { payload: message.payload } : {}),
      correlation_ids: eventCtx.correlation_ids,
      session_key_id: message.session_key_id,
    };
    const sent = this.server?.sendDownlink(token.eui, planned.txpk, acknowledged);
    if (!sent) return fail(ErrNoDownlinkPath.with({ gateway_uid: conn.ids.gateway_id }));
    gsDownlinks.inc({ result: 'sent' });
    const scheduled = {
      data_rate: planned.data_rate,
      frequency: planned.frequency,
      ...(planned.txpk.tmst !== undefined ? { timestamp: planned.txpk.tmst } : {}),
      ...(planned.time !== undefined ? { time: planned.time } : {}),
      downlink: { tx_power: planned.eirp, invert_polarization: true, antenna_index: token.antenna_index },
    };
    const { request: _request, ...rest } = message;
    this.events.publish(GS_EVENTS.downSend, ids, { ctx: eventCtx, data: { ...rest, scheduled, correlation_ids: eventCtx.correlation_ids } });
    return {
      delay: `${Math.max(0, planned.transmit_at_ms - now) / 1000}s`,
      downlink_path: { uplink_token: path.uplink_token },
      ...(planned.window === 'rx1' ? { rx1: true } : { rx2: true }),
    };
  }

  /**
   * The transmission of a downlink by its class: A in RX1 or RX2 after the uplink, B at the
   * request's absolute time (ping slot) through a GPS-synchronised gateway, C now. No class is
   * class A (the proto's zero value).
   */
  private plan(payload: Buffer, request: TxRequest, token: UplinkToken, conn: GatewayConnection, plan: FrequencyPlan, now: number) {
    switch (request.class ?? 'CLASS_A') {
      case 'CLASS_B':
        return planClassBDownlink(payload, request, plan, conn.gps_time !== undefined, now);
      case 'CLASS_C':
        return planClassCDownlink(payload, request, plan, now);
      default:
        return planClassADownlink(payload, request, token, plan, now);
    }
  }

  /** The UDP frontend (tests and the downlink path to come). */
  get udp(): UdpGatewayServer | undefined {
    return this.server;
  }

  /** `GsIs.GetGatewayForEUI`: the gateway, undefined when the IS knows none with this EUI. */
  private async askIdentityServer(eui: string): Promise<GatewayResolution | undefined> {
    try {
      return await this.rpc.call<GatewayResolution>(RPCS['GsIs.GetGatewayForEUI'].subject, { ctx: this.context([]), body: { eui } });
    } catch (err) {
      // A component's error reply is its details; anything else is the transport's.
      if (isErrorDetails(err) && err.code === Code.NotFound) return undefined;
      throw isErrorDetails(err) ? new Error(`${err.namespace}:${err.name}`) : err;
    }
  }

  private context(correlationIds: string[]): RpcContext {
    return { request_id: newUlid(), correlation_ids: correlationIds };
  }

  private handlers(): UdpHandlers {
    const gatewayIds = (conn: GatewayConnection) => ({ gateway_ids: conn.ids });
    return {
      connected: (conn) => {
        gsConnectedGateways.inc({ protocol: 'udp' });
        this.serveDownlinks(conn);
        this.events.publish(GS_EVENTS.connect, gatewayIds(conn), {
          data: { connected_at: conn.connected_at, protocol: 'udp', gateway_remote_address: { ip: conn.remote.address } },
        });
      },
      disconnected: (conn, reason) => {
        gsConnectedGateways.dec({ protocol: 'udp' });
        this.routes.get(conn.ids.eui)?.unsubscribe();
        this.routes.delete(conn.ids.eui);
        this.events.publish(GS_EVENTS.disconnect, gatewayIds(conn), {
          data: (reason === 'expired' ? ErrConnectionExpired : ErrServerStopped).with().toDetails(),
        });
      },
      refused: (eui, reason, detail) => {
        gsDatagramsDropped.inc({ reason });
        const heldBack = this.dropLog.sample(reason);
        if (heldBack !== undefined)
          this.logger.warn(
            { gateway_eui: eui, reason, ...(detail ? { detail } : {}), held_back: heldBack },
            'datagram of a gateway that is not connected dropped',
          );
      },
      // Every line of an uplink's handling carries its gs:uplink ID.
      uplink: (conn, message) =>
        void withLogFields({ component: 'gs', gateway_id: conn.ids.gateway_id, uplink_id: message.correlation_ids[0] }, () => this.uplink(conn, message)),
      status: (conn, status) => this.events.publish(GS_EVENTS.statusReceive, gatewayIds(conn), { data: status }),
      txAck: (conn, downlink: PendingDownlink, result) => void this.txAck(conn, downlink, result),
      dropped: (reason, detail, _conn, count = 1) => {
        gsDatagramsDropped.inc({ reason }, count);
        this.logger.debug?.({ reason, detail }, 'datagram dropped');
      },
    };
  }

  /**
   * A gateway's TX_ACK (TTS `udp.go`, `grpc_nsgs.go`): `gs.txack.receive`, `gs.down.tx.success` or
   * `.fail` with the result, then the acknowledgment goes to the NS (`GsNs.ReportTxAcknowledgment`):
   * `gs.txack.forward`, or `gs.txack.drop` when no NS took it.
   */
  private async txAck(conn: GatewayConnection, downlink: PendingDownlink, result: TxAckResult): Promise<void> {
    const ids = { gateway_ids: conn.ids };
    const message = (downlink.context ?? {}) as { correlation_ids?: string[] };
    const ctx = this.context([...(message.correlation_ids ?? []), `gs:tx_ack:${newUlid()}`]);
    this.events.publish(GS_EVENTS.txAckReceive, ids, { ctx, data: { result, downlink_message: message } });
    if (result === 'SUCCESS') this.events.publish(GS_EVENTS.downTxSuccess, ids, { ctx });
    else this.events.publish(GS_EVENTS.downTxFail, ids, { ctx, data: result });
    try {
      await this.rpc.call(RPCS['GsNs.ReportTxAcknowledgment'].subject, { ctx, body: { result, downlink_message: message } });
      this.events.publish(GS_EVENTS.txAckForward, ids, { ctx });
    } catch (err) {
      this.events.publish(GS_EVENTS.txAckDrop, ids, { ctx, data: isErrorDetails(err) ? err : ErrNoNetworkServer.with().toDetails() });
    }
  }

  /** Serves `NsGs.ScheduleDownlink` on the gateway's own subject while this replica holds it. */
  private serveDownlinks(conn: GatewayConnection): void {
    const rpc = RPCS['NsGs.ScheduleDownlink'];
    this.routes.get(conn.ids.eui)?.unsubscribe();
    this.routes.set(conn.ids.eui, this.router.route(rpcPattern('NsGs.ScheduleDownlink'), gatewayDownlinkSubject(rpc.subject, conn.ids.gateway_id)));
  }

  private async uplink(conn: GatewayConnection, message: UplinkMessageJson): Promise<void> {
    const ids = { gateway_ids: conn.ids };
    const ctx = this.context(message.correlation_ids);
    const bandId = getFrequencyPlan(conn.frequency_plan_ids[0] ?? '')?.band_id;
    this.events.publish(GS_EVENTS.upReceive, ids, { ctx, data: { message, ...(bandId ? { band_id: bandId } : {}) } });
    if (message.crc_status === false) return this.drop(ids, ctx, ErrMessageCRC.with().toDetails());
    // A frame that is no LoRaWAN PHYPayload goes no further (TTS's GS unmarshals it first).
    const frame = parsePhyPayload(Buffer.from(message.raw_payload, 'base64'));
    if ('error' in frame) return this.drop(ids, ctx, ErrInvalidPayload.with({ reason: frame.error }).toDetails());
    const dropped = await this.coalescer.submit(message);
    if (dropped) return this.drop(ids, ctx, dropped);
    gsUplinks.inc({ result: 'forwarded' });
    this.events.publish(GS_EVENTS.upForward, ids, { ctx, data: 'cluster' });
  }

  /** The NS call of one uplink (its copies merged): the error that drops it, else undefined. */
  private async forward(message: UplinkMessageJson): Promise<ErrorDetails | undefined> {
    try {
      await this.rpc.call(RPCS['GsNs.HandleUplink'].subject, { ctx: this.context(message.correlation_ids), body: message });
    } catch (err) {
      // As TTS's GS: an answer from the NS (no such device, …) means the NS has it; a failed call (or a busy or absent NS) drops it.
      if (!isErrorDetails(err) || DROP_CODES.has(err.code)) return isErrorDetails(err) ? err : ErrNoNetworkServer.with().toDetails();
    }
    return undefined;
  }

  private drop(ids: { gateway_ids: GatewayConnection['ids'] }, ctx: RpcContext, error: ErrorDetails): void {
    gsUplinks.inc({ result: 'dropped' });
    this.events.publish(GS_EVENTS.upDrop, ids, { ctx, data: error });
  }
}
