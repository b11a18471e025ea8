import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  type AcknowledgedDownlink,
  gatewayDownlinkSubject,
  GS_EVENTS,
  type GetGatewayForEUIResponse,
  type Location,
  newUlid,
  RPCS,
  rpcPattern,
} from '@lorawan/api';
import { EventPublisher, RpcInvoker } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { Code, type ErrorDefinition, isErrorDetails } from '@lorawan/errors';
import { getFrequencyPlan } from '@lorawan/lorawan';
import {
  gsConnectedGateways,
  gsDatagramsDropped,
  gsGatewayDisconnects,
  gsDownlinksRefused,
  LogSampler,
  setGsSubBandUtilizationSource,
  withLogFields,
} from '@lorawan/observability';
import type { SubBandUtilization } from '@lorawan/observability';
import { type PubSub, PUBSUB, type SubjectRouter, SUBJECT_ROUTER, type Subscription } from '@lorawan/transport';
import type { GatewayConnection, PendingDownlink } from '../connection/gateway-connection';
import { type DisconnectReason, GatewayConnections, type RefusalReason } from '../connection/gateway-connections';
import { gsContext } from '../context';
import { ErrConnectionClosed, ErrConnectionExpired, ErrMissedTooManyPongs, ErrNewConnection, ErrNoNetworkServer, ErrServerStopped } from '../errors';
import { BasicStationServer } from '../io/basicstation/lns-server';
import type { FrontendEvents, GatewayFrontend } from '../io/frontend';
import { gatewayFrontends } from '../io/frontends';
import type { GatewayStatusJson, TxAckResult, UplinkMessageJson } from '../io/messages';
import { UdpGatewayServer } from '../io/udp/udp-server';
import { GatewayLookup } from '../lookup/gateway-lookup';
import { assertGatewayLink } from '../lookup/gateway-link-rights';
import { watchGatewayRegistrations } from '../lookup/registration-watch';
import { UplinksService } from '../uplinks/uplinks.service';
import { LocationUpdates } from './location-updates';

/** The RPCs served on each connected gateway's own subject (`PER_GATEWAY_RPCS` of the contract). */
const PER_GATEWAY = ['NsGs.ScheduleDownlink', 'GsGs.GetGatewayConnectionStats'] as const;

/** The error a `gs.gateway.disconnect` carries, by reason. */
const DISCONNECT_ERRORS: Record<DisconnectReason, ErrorDefinition> = {
  timeout: ErrConnectionExpired,
  stopped: ErrServerStopped,
  closed: ErrConnectionClosed,
  replaced: ErrNewConnection,
  missed_pongs: ErrMissedTooManyPongs,
};

/**
 * The Gateway Server's core: its frontends (Semtech UDP on GS_UDP_PORT, `io/udp`; LoRa Basics
 * Station on GS_LBS_PORT/GS_LBS_TLS_PORT, `io/basicstation`, whose gateways' API keys the IS
 * checks, `EntityAccess.Authorize`), the gateways connected through them (`GatewayConnections`, resolved by EUI through the Identity Server,
 * `GsIs.GetGatewayForEUI`), and what the frontends report: every received copy goes the one
 * uplink path to the Network Server (`UplinksService`); while a replica holds a gateway it serves
 * `NsGs.ScheduleDownlink` on the gateway's own subject (`DownlinksService`), so the NS reaches
 * the replica holding its downlink path; TX acknowledgments go to the NS
 * (`GsNs.ReportTxAcknowledgment`); and TTS's events on the way: `gs.gateway.connect|disconnect`,
 * `gs.status.receive`, `gs.txack.receive`. Gateways are looked up through `GatewayLookup`
 * (unknown EUIs remembered, a bounded rate of lookups), which forgets an unknown EUI when the IS
 * registers a gateway with it; datagrams of gateways that are not connected are dropped, counted
 * by reason and logged at a sampled rate.
 */
@Injectable()
export class GatewayServerService implements OnApplicationBootstrap, BeforeApplicationShutdown, FrontendEvents {
  private readonly logger = new Logger('GatewayServer');
  private readonly connections: GatewayConnections;
  private frontends: GatewayFrontend[] = [];
  /** The per-gateway subjects this replica serves (`NsGs.ScheduleDownlink`, `GsGs.GetGatewayConnectionStats`), by gateway EUI. */
  private readonly routes = new Map<string, Subscription[]>();
  /** The connections this replica holds, by gateway ID (stats requests name the gateway by ID). */
  private readonly byId = new Map<string, GatewayConnection>();
  private readonly gateways: GatewayLookup;
  private registrations?: Subscription;
  /** Which status locations go to the IS (`update_location_from_status`, changed, debounced). */
  private readonly locations: LocationUpdates;
  /** Dropped datagrams are logged by reason, one line per 10 s each at most. */
  private readonly dropLog = new LogSampler();

  constructor(
    @Inject(STACK_CONFIG) private readonly config: StackConfig,
    private readonly rpc: RpcInvoker,
    @Inject(SUBJECT_ROUTER) private readonly router: SubjectRouter,
    @Inject(PUBSUB) private readonly pubsub: PubSub,
    private readonly events: EventPublisher,
    private readonly uplinks: UplinksService,
  ) {
    const {
      unknownEuiCacheSize,
      unknownEuiCacheTtlMs,
      unknownEuiLookupsPerSec,
      requireRegisteredGateways,
      fallbackFrequencyPlan,
      enforceDutyCycle,
      dutyCycleWindowMs,
    } = config.gs;
    this.locations = new LocationUpdates(config.gs.updateGatewayLocationDebounceMs);
    this.gateways = new GatewayLookup(
      { unknownCacheSize: unknownEuiCacheSize, unknownCacheTtlMs: unknownEuiCacheTtlMs, lookupsPerSec: unknownEuiLookupsPerSec },
      (eui) => this.askIdentityServer(eui),
    );
    this.connections = new GatewayConnections(
      {
        requireRegistered: requireRegisteredGateways,
        fallbackFrequencyPlan,
        scheduling: { enforce_duty_cycle: enforceDutyCycle, duty_cycle: { window_us: dutyCycleWindowMs * 1000 } },
      },
      (eui) => this.gateways.lookup(eui),
      this,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    const { fallbackFrequencyPlan } = this.config.gs;
    if (fallbackFrequencyPlan && !getFrequencyPlan(fallbackFrequencyPlan))
      throw new Error(`GS_FALLBACK_FREQUENCY_PLAN "${fallbackFrequencyPlan}" is not a frequency plan of the catalogue`);
    this.registrations = watchGatewayRegistrations(this.pubsub, (eui) => this.gateways.forget(eui));
    setGsSubBandUtilizationSource(() => this.subBandUtilization());
    this.connections.start();
    this.frontends = gatewayFrontends(this.config.gs, this.connections, this, {
      gateway: (eui) => this.gateways.lookup(eui),
      assertLink: (gateway, authorization) =>
        assertGatewayLink(gateway, authorization, (header, entity) =>
          this.rpc.invoke('EntityAccess.Authorize', { authorization: header, entity }, gsContext([])),
        ),
    });
    for (const frontend of this.frontends) {
      await frontend.start();
      const { fields, message } = frontend.describe();
      this.logger.log(fields, message);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.registrations?.unsubscribe();
    setGsSubBandUtilizationSource(undefined);
    for (const frontend of this.frontends) await frontend.stop();
    this.connections.stop();
  }

  /** The connection of a gateway this replica holds, by EUI. */
  connection(eui: string): GatewayConnection | undefined {
    return this.connections.get(eui);
  }

  /** The connection of a gateway this replica holds, by gateway ID. */
  connectionById(gatewayId: string): GatewayConnection | undefined {
    return this.byId.get(gatewayId);
  }

  /** Each sub-band's duty-cycle utilization on the gateways of this replica (`lorawan_gs_sub_band_utilization`). */
  subBandUtilization(): SubBandUtilization[] {
    const rows: SubBandUtilization[] = [];
    for (const conn of this.connections.all())
      for (const sb of conn.scheduler?.subBandStats() ?? [])
        rows.push({
          band_id: conn.frequency_plan?.band_id ?? '',
          sub_band: `${sb.min_frequency}-${sb.max_frequency}`,
          utilization: sb.downlink_utilization,
          limit: sb.downlink_utilization_limit,
        });
    return rows;
  }

  /** The Semtech UDP frontend, once started (tests). */
  get udp(): UdpGatewayServer | undefined {
    return this.frontends.find((frontend) => frontend instanceof UdpGatewayServer);
  }

  /** The Basics Station frontend, once started (tests). */
  get basicStation(): BasicStationServer | undefined {
    return this.frontends.find((frontend) => frontend instanceof BasicStationServer);
  }

  /** `GsIs.GetGatewayForEUI`: the gateway, undefined when the IS knows none with this EUI. */
  private async askIdentityServer(eui: string): Promise<GetGatewayForEUIResponse | undefined> {
    try {
      return await this.rpc.invoke('GsIs.GetGatewayForEUI', { eui }, gsContext([]));
    } catch (err) {
      // A component's error reply is its details; anything else is the transport's.
      if (isErrorDetails(err) && err.code === Code.NotFound) return undefined;
      throw isErrorDetails(err) ? new Error(`${err.namespace}:${err.name}`) : err;
    }
  }

  connected(conn: GatewayConnection): void {
    const { protocol } = conn.frontend;
    gsConnectedGateways.inc({ protocol });
    this.byId.set(conn.ids.gateway_id, conn);
    this.servePerGatewaySubjects(conn);
    this.events.publish(
      GS_EVENTS.connect,
      { gateway_ids: conn.ids },
      {
        data: { connected_at: conn.connected_at, protocol, gateway_remote_address: { ip: conn.remote.address } },
      },
    );
  }

  /** A connection ended: `gs.gateway.disconnect` with the error of its end, whose `reason` attribute says why (`timeout`, `stopped`, `closed`, `replaced`, `missed_pongs`). */
  disconnected(conn: GatewayConnection, reason: DisconnectReason): void {
    const { protocol } = conn.frontend;
    gsConnectedGateways.dec({ protocol });
    gsGatewayDisconnects.inc({ protocol, reason });
    if (this.byId.get(conn.ids.gateway_id) === conn) this.byId.delete(conn.ids.gateway_id);
    for (const route of this.routes.get(conn.ids.eui) ?? []) route.unsubscribe();
    this.routes.delete(conn.ids.eui);
    const error = DISCONNECT_ERRORS[reason];
    const attributes = reason === 'timeout' ? { reason, timeout_ms: conn.frontend.connectionTimeoutMs } : { reason };
    this.events.publish(GS_EVENTS.disconnect, { gateway_ids: conn.ids }, { data: error.with(attributes).toDetails() });
  }

  refused(eui: string, reason: RefusalReason, detail?: string): void {
    gsDatagramsDropped.inc({ reason });
    const heldBack = this.dropLog.sample(reason);
    if (heldBack !== undefined)
      this.logger.warn({ gateway_eui: eui, reason, ...(detail ? { detail } : {}), held_back: heldBack }, 'datagram of a gateway that is not connected dropped');
  }

  // Every line of an uplink's handling carries its gs:uplink ID.
  uplink(conn: GatewayConnection, message: UplinkMessageJson): void {
    conn.stats.uplink();
    // Every uplink anchors the gateway's clock (TTS: the scheduler syncs on each one).
    conn.scheduler?.sync(message.settings.timestamp, Date.parse(message.received_at) * 1000);
    void withLogFields({ component: 'gs', gateway_id: conn.ids.gateway_id, uplink_id: message.correlation_ids[0] }, () => this.uplinks.handle(conn, message));
  }

  status(conn: GatewayConnection, status: GatewayStatusJson): void {
    conn.stats.status(status);
    const location = this.locations.take(conn, status);
    if (location) void this.updateLocation(conn, location);
    this.events.publish(GS_EVENTS.statusReceive, { gateway_ids: conn.ids }, { data: status });
  }

  txAck(conn: GatewayConnection, downlink: PendingDownlink, result: TxAckResult): void {
    conn.stats.txAcknowledgment();
    void this.reportTxAck(conn, downlink, result);
  }

  dropped(reason: string, detail?: string, _conn?: GatewayConnection, count = 1): void {
    gsDatagramsDropped.inc({ reason }, count);
    this.logger.debug?.({ reason, detail }, 'datagram dropped');
  }

  /** `GsIs.UpdateGatewayAntennaLocation`; a failure is logged (the next status after the debounce tries again). */
  private async updateLocation(conn: GatewayConnection, location: Location): Promise<void> {
    try {
      await this.rpc.invoke('GsIs.UpdateGatewayAntennaLocation', { gateway_ids: { gateway_id: conn.ids.gateway_id }, location }, gsContext([]));
    } catch (err) {
      this.logger.warn(
        { gateway_id: conn.ids.gateway_id, error: isErrorDetails(err) ? `${err.namespace}:${err.name}` : (err as Error).message },
        'gateway location not updated',
      );
    }
  }

  /**
   * A gateway's TX acknowledgment (TTS `udp.go`, `grpc_nsgs.go`): `gs.txack.receive`, `gs.down.tx.success` or
   * `.fail` with the result, then the acknowledgment goes to the NS (`GsNs.ReportTxAcknowledgment`):
   * `gs.txack.forward`, or `gs.txack.drop` when no NS took it.
   */
  private async reportTxAck(conn: GatewayConnection, downlink: PendingDownlink, result: TxAckResult): Promise<void> {
    const ids = { gateway_ids: conn.ids };
    const message = (downlink.context ?? {}) as AcknowledgedDownlink;
    const ctx = gsContext([...(message.correlation_ids ?? []), `gs:tx_ack:${newUlid()}`]);
    // The gateways the NS may try next go to the NS only.
    const { next_paths: _next, ...published } = message;
    this.events.publish(GS_EVENTS.txAckReceive, ids, { ctx, data: { result, downlink_message: published } });
    if (result === 'SUCCESS') this.events.publish(GS_EVENTS.downTxSuccess, ids, { ctx });
    else {
      gsDownlinksRefused.inc({ by: 'gateway', reason: result.toLowerCase() });
      this.events.publish(GS_EVENTS.downTxFail, ids, { ctx, data: result });
      // Once more where it can still go (RX2 after RX1, class C after this one): its own acknowledgment reports the outcome.
      const retried = downlink.retry?.();
      // The radio will not be on the air then: the emission leaves the scheduler's books.
      if (downlink.emission) conn.scheduler?.cancel(downlink.emission);
      if (retried) return;
    }
    try {
      await this.rpc.invoke('GsNs.ReportTxAcknowledgment', { result, downlink_message: message }, ctx);
      this.events.publish(GS_EVENTS.txAckForward, ids, { ctx });
    } catch (err) {
      this.events.publish(GS_EVENTS.txAckDrop, ids, { ctx, data: isErrorDetails(err) ? err : ErrNoNetworkServer.with().toDetails() });
    }
  }

  /** Serves `NsGs.ScheduleDownlink` and `GsGs.GetGatewayConnectionStats` on the gateway's own subjects while this replica holds it. */
  private servePerGatewaySubjects(conn: GatewayConnection): void {
    for (const route of this.routes.get(conn.ids.eui) ?? []) route.unsubscribe();
    this.routes.set(
      conn.ids.eui,
      PER_GATEWAY.map((name) => this.router.route(rpcPattern(name), gatewayDownlinkSubject(RPCS[name].subject, conn.ids.gateway_id))),
    );
  }
}
