import { Inject, Injectable, Logger } from '@nestjs/common';
import { type ApplicationUp, type ApplicationUpJson, nowTimestamp, type RpcContext, plainJson } from '@lorawan/api';
import { ErrValidation } from '@lorawan/errors';
import { DeviceRegistry } from '@lorawan/registry';
import type { AsDevice } from '../end-devices/as-device';
import { ErrDecodePayload, ErrDeviceNotFound, ErrPayloadCryptoSkipped, ErrSimulated } from '../errors';
import { isFormatterLimitError, isFormatterRefusal } from '../formatters/formatter.errors';
import { ApplicationUpForwarder, requireUpKind } from '../integrations/application-up-forwarder.service';
import { ApplicationLinkRegistry } from '../links/application-link.service';
import { skipsPayloadCrypto } from '../links/link-settings';
import { UplinkDecoder } from './uplink-decoder.service';

type Empty = Record<string, never>;

/**
 * AppAs.SimulateUplink (wire contract §9; TTS `io/grpc/grpc.go` SimulateUplink and
 * `applicationserver.go` processUp / handleSimulatedUplink): refuses a message already marked
 * `simulated` and devices whose payload crypto is skipped; then the message gets its correlation
 * IDs (the body's, the request's, `as:up:<ULID>`), `received_at` (now, unless given),
 * `simulated: true` and the device's identifiers as the AS registry has them. An uplink is decoded
 * with the device's up formatter, else the application link's default (unless it already carries
 * `decoded_payload`); a failure publishes `as.up.data.decode.fail` and the uplink goes on without
 * `decoded_payload`. The message is then handed to the integrations, with its `as.up.*` events
 * (ApplicationUpForwarder). Unlike TTS, a formatter that ran into a limit of the AS (time, memory,
 * stack, output size or depth: a runaway script) refuses the simulated uplink: `as.up.data.drop`
 * and 400 `decode_payload` with the script's error as its cause, or 429 `formatter_busy` /
 * `formatter_suspended` when the application's formatter calls are queued to their bound or its
 * scripts ran into the limits too often; a real uplink goes on without `decoded_payload`
 * (UplinkDecoder).
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
    @Inject(DeviceRegistry) private readonly registry: DeviceRegistry<AsDevice>,
    @Inject(ApplicationLinkRegistry) private readonly links: ApplicationLinkRegistry,
    @Inject(UplinkDecoder) private readonly decoder: UplinkDecoder,
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
    if (kind === 'uplink_message') {
      const failure = await this.decoder.decode(up, device, link, eventCtx);
      if (failure && isFormatterLimitError(failure)) {
        const err = isFormatterRefusal(failure) ? failure : ErrDecodePayload.with({}, failure);
        this.upstream.dropped(up, eventCtx, err);
        throw err;
      }
    }
    await this.upstream.forward(up, eventCtx);
    return {};
  }

  /** The device as the AS registry stores it, or undefined when it has none. */
  private async device(applicationId: string, deviceId: string): Promise<AsDevice | undefined> {
    try {
      return await this.registry.stored({ application_id: applicationId, device_id: deviceId });
    } catch (err) {
      if (ErrDeviceNotFound.matches(err)) return undefined;
      throw err;
    }
  }
}
