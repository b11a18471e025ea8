import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { NS_EVENTS, type RpcContext, type TxAcknowledgmentRequest } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { type Device, DeviceRegistry } from '@lorawan/registry';
import { ApplicationUplinks } from '../application-uplinks.service';
import { ErrDeviceNotFound, ErrTransmission } from '../errors';

type Json = Record<string, unknown>;

/** How often, and how far apart, the device is read for the acknowledged downlink before it counts as unknown (1 s in all). */
const TX_ACK_LOOKUPS = 20;
const TX_ACK_LOOKUP_INTERVAL_MS = 50;
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
 * one produces none) or `downlink_failed` with the gateway's reason. The device is read again for
 * up to a second while the downlink is not among its recent downlinks: a gateway answers within
 * milliseconds, possibly before the NS that sent the downlink recorded it.
 */
@Injectable()
export class TxAcknowledgments {
  constructor(
    private readonly registry: DeviceRegistry,
    private readonly applicationUplinks: ApplicationUplinks,
    private readonly events: EventPublisher,
  ) {}

  async report(request: TxAcknowledgmentRequest, ctx: RpcContext): Promise<Record<string, never>> {
    const ids = request.downlink_message.end_device_ids;
    const downlinkId = (request.downlink_message.correlation_ids ?? []).find((c) => c.startsWith('ns:downlink:'));
    if (!ids || !downlinkId) return {};
    let device: Device | undefined;
    let recent: RecentDownlink | undefined;
    // A gateway acknowledges within milliseconds: its TX_ACK may come before this NS (or another replica) recorded the downlink it sent.
    for (let attempt = 0; !recent && attempt < TX_ACK_LOOKUPS; attempt++) {
      if (attempt > 0) await sleep(TX_ACK_LOOKUP_INTERVAL_MS);
      try {
        device = await this.registry.stored({ application_id: ids.application_ids.application_id, device_id: ids.device_id });
      } catch (err) {
        if (ErrDeviceNotFound.matches(err)) return {};
        throw err;
      }
      recent = (((device.mac_state as Json | undefined)?.recent_downlinks as RecentDownlink[] | undefined) ?? []).find((d) =>
        (d.correlation_ids ?? []).includes(downlinkId),
      );
    }
    if (!device) return {};
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
    await this.applicationUplinks.send([up], ctx, { device_id: ids.device_id, what: 'downlink result' });
    return {};
  }
}
