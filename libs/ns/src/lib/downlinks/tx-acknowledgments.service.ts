import { Inject, Injectable, Logger } from '@nestjs/common';
import { NS_EVENTS, RPCS, type RpcContext, type TxAcknowledgmentRequest } from '@lorawan/api';
import { COMPONENT_RPC_CLIENT, EventPublisher } from '@lorawan/component';
import { isErrorDetails } from '@lorawan/errors';
import { type Device, DeviceRegistry } from '@lorawan/registry';
import type { RpcClient } from '@lorawan/transport';
import { ErrDeviceNotFound, ErrTransmission } from '../errors';

type Json = Record<string, unknown>;
interface RecentDownlink {
  payload?: { m_hdr?: { m_type?: string }; mac_payload?: { f_hdr?: { f_cnt?: number }; f_port?: number; frm_payload?: string } };
  correlation_ids?: string[];
  session_key_id?: string;
}

/**
 * `GsNs.ReportTxAcknowledgment` (TTS `grpc_gsns.go` ReportTxAcknowledgment): a gateway's answer to
 * a downlink this NS scheduled. The downlink is found among the device's recent downlinks by its
 * `ns:downlink:` correlation ID; `ns.down.transmission.success` or `.fail`, and for an application
 * downlink the AS is told: `downlink_sent` (TTS: only on a TX_ACK, so a gateway that never sends
 * one produces none) or `downlink_failed` with the gateway's reason.
 */
@Injectable()
export class TxAcknowledgments {
  private readonly logger = new Logger('TxAcknowledgments');

  constructor(
    private readonly registry: DeviceRegistry,
    @Inject(COMPONENT_RPC_CLIENT) private readonly rpc: RpcClient,
    private readonly events: EventPublisher,
  ) {}

  async report(request: TxAcknowledgmentRequest, ctx: RpcContext): Promise<Record<string, never>> {
    const ids = request.downlink_message.end_device_ids;
    const downlinkId = (request.downlink_message.correlation_ids ?? []).find((c) => c.startsWith('ns:downlink:'));
    if (!ids || !downlinkId) return {};
    let device: Device;
    try {
      device = await this.registry.stored({ application_id: ids.application_ids.application_id, device_id: ids.device_id });
    } catch (err) {
      if (ErrDeviceNotFound.matches(err)) return {};
      throw err;
    }
    const recent = (((device.mac_state as Json | undefined)?.recent_downlinks as RecentDownlink[] | undefined) ?? []).find((d) =>
      (d.correlation_ids ?? []).includes(downlinkId),
    );
    const deviceIds = { device_ids: device.ids };
    const success = request.result === 'SUCCESS';
    const error = success ? undefined : ErrTransmission.with({ result: request.result });
    if (error) this.events.publish(NS_EVENTS.transmissionFail, deviceIds, { ctx, data: error.toDetails() });
    else this.events.publish(NS_EVENTS.transmissionSuccess, deviceIds, { ctx });
    const mac = recent?.payload?.mac_payload;
    if (!mac?.f_port) return {};
    const downlink = {
      session_key_id: recent?.session_key_id,
      f_port: mac.f_port,
      f_cnt: mac.f_hdr?.f_cnt,
      frm_payload: mac.frm_payload,
      confirmed: recent?.payload?.m_hdr?.m_type === 'CONFIRMED_DOWN',
      correlation_ids: recent?.correlation_ids,
    };
    const up = {
      end_device_ids: device.ids,
      correlation_ids: ctx.correlation_ids,
      ...(error ? { downlink_failed: { downlink, error: error.toDetails() } } : { downlink_sent: downlink }),
    };
    try {
      await this.rpc.call(RPCS['NsAs.HandleUplink'].subject, { ctx, body: { application_ups: [up] } });
    } catch (err) {
      const reason = isErrorDetails(err) ? `${err.namespace}:${err.name}` : (err as Error).message;
      this.logger.warn({ device_id: ids.device_id, error: reason }, 'downlink result not forwarded to the Application Server');
    }
    return {};
  }
}
