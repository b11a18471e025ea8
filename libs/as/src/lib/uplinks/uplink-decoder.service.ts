import { Inject, Injectable } from '@nestjs/common';
import { type ApplicationLink, type ApplicationUpJson, AS_EVENTS, deviceIdentifiers, type RpcContext } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import type { StackError } from '@lorawan/errors';
import { PayloadFormatter } from '../formatters/payload-formatter.service';
import { formatterFor, type LinkedDevice } from '../links/link-settings';

/**
 * Decodes the (plaintext) FRMPayload of an ApplicationUp's `uplink_message` into
 * `decoded_payload`, for the Network Server's uplinks and simulated ones alike (TTS `payload.go`
 * decodeUplink): the device's up formatter, else the application link's default; nothing for
 * FPort 0, for an uplink without FRMPayload, or one that already carries `decoded_payload`. The
 * script's `recvTime` is the uplink's `received_at` (when the NS received it), else the message's.
 * A formatter failure publishes `as.up.data.decode.fail` (data: the error; identifiers: the
 * message's device) and leaves the uplink without `decoded_payload`: it still goes on, as in TTS.
 * Warnings become `decoded_payload_warnings`. Returns the formatter's error, if it failed.
 */
@Injectable()
export class UplinkDecoder {
  constructor(
    @Inject(PayloadFormatter) private readonly formatter: PayloadFormatter,
    @Inject(EventPublisher) private readonly events: EventPublisher,
  ) {}

  async decode(up: ApplicationUpJson, device: LinkedDevice, link: ApplicationLink | undefined, ctx: RpcContext): Promise<StackError | undefined> {
    const uplink = up.uplink_message;
    if (!uplink || typeof uplink.frm_payload !== 'string' || uplink.decoded_payload !== undefined) return undefined;
    const fPort = Number(uplink.f_port ?? 0);
    if (!fPort) return undefined;
    const { formatter, parameter } = formatterFor('up', device, link);
    if (!formatter || formatter === 'FORMATTER_NONE') return undefined;
    const receivedAt = (uplink.received_at as string | undefined) ?? up.received_at;
    const decoded = await this.formatter.decodeUplink(
      {
        applicationId: up.end_device_ids.application_ids.application_id,
        bytes: Buffer.from(uplink.frm_payload, 'base64'),
        fPort,
        ...(receivedAt ? { recvTime: new Date(receivedAt) } : {}),
      },
      formatter,
      parameter,
    );
    if (!decoded) return undefined;
    if (decoded.error) {
      this.events.publish(AS_EVENTS.upDataDecodeFail, deviceIdentifiers(up.end_device_ids), { ctx, data: decoded.error.toDetails() });
      return decoded.error;
    }
    uplink.decoded_payload = decoded.data ?? {};
    if (decoded.warnings.length > 0) uplink.decoded_payload_warnings = decoded.warnings;
    return undefined;
  }
}
