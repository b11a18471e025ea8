import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { GS_EVENTS, newUlid, RPCS, type RpcContext } from '@lorawan/api';
import { COMPONENT_RPC_CLIENT, EventPublisher } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { Code, type ErrorDetails, isErrorDetails } from '@lorawan/errors';
import { getFrequencyPlan } from '@lorawan/lorawan';
import { gsConnectedGateways, gsDatagramsDropped, gsUplinks } from '@lorawan/observability';
import type { RpcClient } from '@lorawan/transport';
import { ErrConnectionExpired, ErrMessageCRC, ErrNoNetworkServer, ErrServerStopped } from '../errors';
import type { UplinkMessageJson } from '../udp/translation';
import { type GatewayConnection, type GatewayResolution, type PendingDownlink, UdpGatewayServer, type UdpHandlers } from '../udp/udp-server';

/**
 * The Gateway Server: the Semtech UDP frontend on GS_UDP_PORT, gateways resolved by EUI through
 * the Identity Server (`GsIs.GetGatewayForEUI`), every received copy handed to the Network Server
 * (`GsNs.HandleUplink`), and TTS's events on the way: `gs.gateway.connect|disconnect`,
 * `gs.up.receive`, `gs.up.forward` or `gs.up.drop`, `gs.status.receive`, `gs.txack.receive`. Each
 * copy carries its own `gs:uplink:<ULID>` correlation ID.
 */
@Injectable()
export class GatewayServerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('GatewayServer');
  private server?: UdpGatewayServer;

  constructor(
    @Inject(STACK_CONFIG) private readonly config: StackConfig,
    @Inject(COMPONENT_RPC_CLIENT) private readonly rpc: RpcClient,
    private readonly events: EventPublisher,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { udpPort, udpHost, requireRegisteredGateways, fallbackFrequencyPlan } = this.config.gs;
    if (fallbackFrequencyPlan && !getFrequencyPlan(fallbackFrequencyPlan))
      throw new Error(`GS_FALLBACK_FREQUENCY_PLAN "${fallbackFrequencyPlan}" is not a frequency plan of the catalogue`);
    this.server = new UdpGatewayServer(
      { port: udpPort, host: udpHost, requireRegistered: requireRegisteredGateways, fallbackFrequencyPlan },
      (eui) => this.lookup(eui),
      this.handlers(),
    );
    const port = await this.server.start();
    this.logger.log({ udp_port: port }, `Semtech UDP packet forwarders served on ${udpHost}:${port}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }

  /** The UDP frontend (tests and the downlink path to come). */
  get udp(): UdpGatewayServer | undefined {
    return this.server;
  }

  private async lookup(eui: string): Promise<GatewayResolution | undefined> {
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
        this.events.publish(GS_EVENTS.connect, gatewayIds(conn), {
          data: { connected_at: conn.connected_at, protocol: 'udp', gateway_remote_address: { ip: conn.remote.address } },
        });
      },
      disconnected: (conn, reason) => {
        gsConnectedGateways.dec({ protocol: 'udp' });
        this.events.publish(GS_EVENTS.disconnect, gatewayIds(conn), {
          data: (reason === 'expired' ? ErrConnectionExpired : ErrServerStopped).with().toDetails(),
        });
      },
      refused: (eui, reason) => this.logger.warn({ gateway_eui: eui, reason }, 'gateway connection refused'),
      uplink: (conn, message) => void this.uplink(conn, message),
      status: (conn, status) => this.events.publish(GS_EVENTS.statusReceive, gatewayIds(conn), { data: status }),
      txAck: (conn, downlink: PendingDownlink, result) =>
        this.events.publish(GS_EVENTS.txAckReceive, gatewayIds(conn), { data: { result, downlink_message: downlink.context } }),
      dropped: (reason, detail) => {
        gsDatagramsDropped.inc({ reason });
        this.logger.debug?.({ reason, detail }, 'datagram dropped');
      },
    };
  }

  private async uplink(conn: GatewayConnection, message: UplinkMessageJson): Promise<void> {
    const ids = { gateway_ids: conn.ids };
    const ctx = this.context(message.correlation_ids);
    const bandId = getFrequencyPlan(conn.frequency_plan_ids[0] ?? '')?.band_id;
    this.events.publish(GS_EVENTS.upReceive, ids, { ctx, data: { message, ...(bandId ? { band_id: bandId } : {}) } });
    if (message.crc_status === false) return this.drop(ids, ctx, ErrMessageCRC.with().toDetails());
    try {
      await this.rpc.call(RPCS['GsNs.HandleUplink'].subject, { ctx, body: message });
      gsUplinks.inc({ result: 'forwarded' });
      this.events.publish(GS_EVENTS.upForward, ids, { ctx, data: 'cluster' });
    } catch (err) {
      // The NS refused the uplink or is away: dropped here, as TTS's GS does.
      this.drop(ids, ctx, isErrorDetails(err) ? err : ErrNoNetworkServer.with().toDetails());
    }
  }

  private drop(ids: { gateway_ids: GatewayConnection['ids'] }, ctx: RpcContext, error: ErrorDetails): void {
    gsUplinks.inc({ result: 'dropped' });
    this.events.publish(GS_EVENTS.upDrop, ids, { ctx, data: error });
  }
}
