import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type ApplicationLink,
  type ApplicationUp,
  type ApplicationUpJson,
  deviceIdentifiers,
  type EntityIdentifiersJson,
  nowTimestamp,
  type RpcContext,
  plainJson,
  AS_EVENTS,
} from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { ErrValidation } from '@lorawan/errors';
import { type Device, DeviceRegistry } from '@lorawan/registry';
import { ErrDeviceNotFound, ErrPayloadCryptoSkipped, ErrSimulated } from '../errors';
import { PayloadFormatter } from '../formatters/payload-formatter.service';
import { ApplicationUpForwarder, requireUpKind } from './application-up-forwarder.service';
import { ApplicationLinkRegistry } from './link/application-link.service';
import { formatterFor, type LinkedDevice, skipsPayloadCrypto } from './link/link-settings';

type Json = Record<string, unknown>;
type Empty = Record<string, never>;
type UpDevice = Device & LinkedDevice & { session?: { dev_addr?: string } };

/**
 * AppAs.SimulateUplink (wire contract §9; TTS `io/grpc/grpc.go` SimulateUplink and
 * `applicationserver.go` processUp / handleSimulatedUplink): refuses a message already marked
 * `simulated` and devices whose payload crypto is skipped; then the message gets its correlation
 * IDs (the body's, the request's, `as:up:<ULID>`), `received_at` (now, unless given),
 * `simulated: true` and the device's identifiers as the AS registry has them. An uplink is decoded
 * with the device's up formatter, else the application link's default (unless it already carries
 * `decoded_payload`); a failure publishes `as.up.data.decode.fail` and the uplink goes on without
 * `decoded_payload`. The message is then handed to the integrations, with its `as.up.*` events
 * (ApplicationUpForwarder).
 *
 * Unlike TTS, which answers `{}` at once and processes asynchronously, this answers once the
 * message is processed and its deliveries are durably queued: `{}` means nothing will be lost, and
 * a sink failure is the caller's error. An unknown device still answers `{}` (TTS), with
 * `as.up.data.drop` / `as.up.join.drop` and nothing delivered.
 */
@Injectable()
export class SimulateUplink {
  private readonly logger = new Logger('SimulateUplink');

  constructor(
    @Inject(DeviceRegistry) private readonly registry: DeviceRegistry,
    @Inject(ApplicationLinkRegistry) private readonly links: ApplicationLinkRegistry,
    @Inject(PayloadFormatter) private readonly formatter: PayloadFormatter,
    @Inject(EventPublisher) private readonly events: EventPublisher,
    @Inject(ApplicationUpForwarder) private readonly upstream: ApplicationUpForwarder,
  ) {}

  async simulate(request: ApplicationUp, ctx: RpcContext): Promise<Empty> {
    const kind = requireUpKind(request);
    if (!request.end_device_ids) throw ErrValidation.with({ field: 'end_device_ids', name: 'ApplicationUpValidationError', reason: 'value is required' });
    if (request.simulated) throw ErrSimulated.with();
    const up = plainJson(request) as ApplicationUpJson;
    const ids = up.end_device_ids;
    const [device, link] = await Promise.all([
      this.device(ids.application_ids.application_id, ids.device_id),
      this.links.find(ids.application_ids.application_id),
    ]);
    if (device && skipsPayloadCrypto(device, link)) throw ErrPayloadCryptoSkipped.with();

    const eventCtx = this.upstream.correlate(up, ctx);
    up.received_at ??= nowTimestamp();
    up.simulated = true;
    // The registry's identifiers, with the session's DevAddr (as on real uplinks; also the `{devAddr}` of webhook templates).
    if (device) up.end_device_ids = { ...device.ids, ...(device.session?.dev_addr && !device.ids.dev_addr ? { dev_addr: device.session.dev_addr } : {}) };
    this.upstream.received(up, eventCtx);

    if (!device) {
      const err = ErrDeviceNotFound.with({ device_uid: `${ids.application_ids.application_id}.${ids.device_id}` });
      this.logger.debug({ kind, error: err.message }, 'simulated message dropped');
      this.upstream.dropped(up, eventCtx, err);
      return {};
    }
    if (kind === 'uplink_message' && up.uplink_message)
      await this.decode(up.uplink_message, up.received_at, device, link, deviceIdentifiers(up.end_device_ids), eventCtx);
    await this.upstream.forward(up, eventCtx);
    return {};
  }

  /** The device as the AS registry stores it, or undefined when it has none. */
  private async device(applicationId: string, deviceId: string): Promise<UpDevice | undefined> {
    try {
      return (await this.registry.stored({ application_id: applicationId, device_id: deviceId })) as UpDevice;
    } catch (err) {
      if (ErrDeviceNotFound.matches(err)) return undefined;
      throw err;
    }
  }

  /** Decodes the FRMPayload of an uplink without `decoded_payload` (TTS `payload.go` decodeUplink; FPort 0 is not decoded). */
  private async decode(
    uplink: Json,
    receivedAt: string,
    device: UpDevice,
    link: ApplicationLink | undefined,
    identifiers: EntityIdentifiersJson,
    ctx: RpcContext,
  ): Promise<void> {
    if (typeof uplink.frm_payload !== 'string' || uplink.decoded_payload !== undefined) return;
    const fPort = Number(uplink.f_port ?? 0);
    if (!fPort) return;
    const { formatter, parameter } = formatterFor('up', device, link);
    if (!formatter || formatter === 'FORMATTER_NONE') return;
    const decoded = await this.formatter.decodeUplink(
      { bytes: Buffer.from(uplink.frm_payload, 'base64'), fPort, recvTime: new Date(receivedAt) },
      formatter,
      parameter,
    );
    if (!decoded) return;
    if (decoded.error) {
      this.events.publish(AS_EVENTS.upDataDecodeFail, identifiers, { ctx, data: decoded.error.toDetails() });
      return;
    }
    uplink.decoded_payload = decoded.data ?? {};
    if (decoded.warnings.length > 0) uplink.decoded_payload_warnings = decoded.warnings;
  }
}
