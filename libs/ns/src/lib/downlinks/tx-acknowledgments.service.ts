import { Injectable, Logger } from '@nestjs/common';
import { type AcknowledgedDownlink, NS_EVENTS, plainJson, type RpcContext, type TxAcknowledgmentRequest } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { isStackError, type StackError } from '@lorawan/errors';
import { DeviceRegistry } from '@lorawan/registry';
import { ApplicationUplinks } from '../application-uplinks/application-uplinks.service';
import { ErrDeviceNotFound, ErrNoDownlinkPath, ErrTransmission } from '../errors';
import { asStruct, type NsDevice } from '../model';
import { GatewayDownlinks } from './gateway-downlinks.service';

interface RecentDownlink {
  payload?: { m_hdr?: { m_type?: string }; mac_payload?: { f_hdr?: { f_cnt?: number }; f_port?: number; frm_payload?: string } };
  correlation_ids?: string[];
  session_key_id?: string;
}

/**
 * `GsNs.ReportTxAcknowledgment` (TTS `grpc_gsns.go` ReportTxAcknowledgment): a gateway's answer to
 * a downlink this NS scheduled. The GS hands back the downlink as the NS described it: its device,
 * `ns:downlink:` correlation ID and frame (`payload`: FPort, full FCnt, FRMPayload, confirmed or
 * not), so nothing needs to be read (a gateway answers within milliseconds, possibly before the NS
 * recorded the downlink). From a GS that does not hand back the frame, the downlink is looked up
 * among the device's recent downlinks by its correlation ID. `ns.down.transmission.success` or
 * `.fail`, and for an application downlink the AS is told: `downlink_sent` (TTS: only on a TX_ACK,
 * so a gateway that never sends one produces none) or `downlink_failed` with the gateway's reason.
 *
 * A refusal (the GS already tried what it could on that gateway) is not final while the downlink
 * path has gateways left: the GS hands them back (`next_paths`) with the frame and its TxRequest,
 * and the same frame (same FCnt, same MIC: the device's state already counts it as sent) goes
 * through the next one that takes it, in the same receive windows (each GS refuses what is too
 * late for them). That gateway's acknowledgment then tells the outcome, so a downlink is reported
 * once, by whichever NS replica hears it. Only when no gateway is left does the failure stand,
 * with the last refusal's reason.
 */
@Injectable()
export class TxAcknowledgments {
  private readonly logger = new Logger('TxAcknowledgments');

  constructor(
    private readonly registry: DeviceRegistry<NsDevice>,
    private readonly applicationUplinks: ApplicationUplinks,
    private readonly events: EventPublisher,
    private readonly downlinks: GatewayDownlinks,
  ) {}

  async report(request: TxAcknowledgmentRequest, ctx: RpcContext): Promise<Record<string, never>> {
    const acknowledged = request.downlink_message;
    let error: StackError | undefined = request.result === 'SUCCESS' ? undefined : ErrTransmission.with({ result: request.result });
    if (error && acknowledged.next_paths?.length) {
      const refused = await this.sendOn(acknowledged, error, ctx);
      // Another gateway took it: its acknowledgment tells what became of it.
      if (!refused) return {};
      error = refused;
    }
    const ids = acknowledged.end_device_ids;
    const downlinkId = (acknowledged.correlation_ids ?? []).find((c) => c.startsWith('ns:downlink:'));
    if (!ids || !downlinkId) return {};
    const recent: RecentDownlink | undefined = acknowledged.payload
      ? { payload: acknowledged.payload, correlation_ids: acknowledged.correlation_ids, session_key_id: acknowledged.session_key_id }
      : await this.recorded(ids, downlinkId);
    if (!recent) return {};
    const deviceIds = { device_ids: plainJson(ids) };
    if (error) this.events.publish(NS_EVENTS.transmissionFail, deviceIds, { ctx, data: error.toDetails() });
    else this.events.publish(NS_EVENTS.transmissionSuccess, deviceIds, { ctx });
    const mac = recent.payload?.mac_payload;
    if (!mac?.f_port) return {};
    const downlink = {
      session_key_id: recent.session_key_id,
      f_port: mac.f_port,
      f_cnt: mac.f_hdr?.f_cnt,
      frm_payload: mac.frm_payload,
      confirmed: recent.payload?.m_hdr?.m_type === 'CONFIRMED_DOWN',
      correlation_ids: recent.correlation_ids,
    };
    const up = {
      end_device_ids: deviceIds.device_ids,
      correlation_ids: ctx.correlation_ids,
      ...(error ? { downlink_failed: { downlink, error: asStruct(error.toDetails()) } } : { downlink_sent: downlink }),
    };
    await this.applicationUplinks.send([up], ctx, { device_id: ids.device_id, what: 'downlink result' });
    return {};
  }

  /**
   * The refused downlink through the gateways left of its path (`GatewayDownlinks`: each in turn,
   * each told the ones after it). Undefined once one took it; else the last refusal.
   */
  private async sendOn(acknowledged: AcknowledgedDownlink, refusal: StackError, ctx: RpcContext): Promise<StackError | undefined> {
    const { raw_payload: raw, request, next_paths: paths = [] } = acknowledged;
    if (!raw || !request) return refusal;
    const { downlink_paths: _refused, ...pathless } = request;
    const downlink = {
      raw_payload: raw,
      ...(acknowledged.payload ? { payload: acknowledged.payload } : {}),
      ...(acknowledged.end_device_ids ? { end_device_ids: acknowledged.end_device_ids } : {}),
      request: pathless,
      ...(acknowledged.correlation_ids ? { correlation_ids: acknowledged.correlation_ids } : {}),
      ...(acknowledged.session_key_id ? { session_key_id: acknowledged.session_key_id } : {}),
    };
    try {
      await this.downlinks.schedule(downlink, paths, ctx);
      this.logger.debug?.(
        { device_id: acknowledged.end_device_ids?.device_id, result: refusal.attributes.result },
        'refused downlink sent on to the next gateway',
      );
      return undefined;
    } catch (err) {
      return isStackError(err) ? err : ErrNoDownlinkPath.with();
    }
  }

  /** The downlink among the device's recent downlinks (for a GS that does not hand back the frame). */
  private async recorded(ids: { application_ids: { application_id: string }; device_id: string }, downlinkId: string): Promise<RecentDownlink | undefined> {
    let device: NsDevice;
    try {
      device = await this.registry.stored({ application_id: ids.application_ids.application_id, device_id: ids.device_id });
    } catch (err) {
      if (ErrDeviceNotFound.matches(err)) return undefined;
      throw err;
    }
    const recent: RecentDownlink[] = device.mac_state?.recent_downlinks ?? [];
    return recent.find((d) => (d.correlation_ids ?? []).includes(downlinkId));
  }
}
