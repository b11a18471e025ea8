import { Inject, Injectable } from '@nestjs/common';
import {
  AS_EVENTS,
  type ApplicationDownlink,
  type ApplicationDownlinks,
  type ApplicationLink,
  deviceIdentifiers,
  type DownlinkQueueRequest,
  type EndDeviceIdentifiers,
  nowTimestamp,
  type RpcContext,
  newUlid,
} from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { DeviceRegistry } from '@lorawan/registry';
import type { AsDevice } from '../end-devices/as-device';
import { ErrDownlinkMaxRetriesInvalid, ErrEncodePayload, ErrFPortRange, ErrNoDeviceSession, ErrNoFPort, ErrPayloadTooLarge } from '../errors';
import { isFormatterRefusal } from '../formatters/formatter.errors';
import { PayloadFormatter } from '../formatters/payload-formatter.service';
import { ApplicationLinkRegistry } from '../links/application-link.service';
import { formatterFor } from '../links/link-settings';
import { DownlinkPayloads, sessionOf } from './downlink-payloads.service';
import { DownlinkReports } from './downlink-reports.service';
import { NetworkServerQueue, type NsQueueOperation } from './network-server-queue';
import { DownlinkQueueOperation, inOrder } from './queue-operation.service';

/** Application FPorts (224 is the LoRaWAN test protocol, above are reserved). */
export const MAX_APPLICATION_F_PORT = 223;
/** The largest FRMPayload of any data rate (LoRaWAN regional parameters: 250-byte MACPayload − 8). */
export const MAX_DOWNLINK_PAYLOAD = 242;
/** Attempts of a confirmed downlink without its own `max_attempts`, and the most one may ask for (TTS AS config defaults). */
export const DEFAULT_CONFIRMED_ATTEMPTS = 8;
export const MAX_CONFIRMED_ATTEMPTS = 32;

/** The fields of a received downlink the AS keeps (TTS `io.CleanDownlinks`), in this order. */
const RECEIVED_FIELDS = [
  'session_key_id',
  'f_port',
  'f_cnt',
  'frm_payload',
  'decoded_payload',
  'class_b_c',
  'priority',
  'confirmed',
  'confirmed_retry',
] as const satisfies readonly (keyof ApplicationDownlink)[];

/** A downlink as received, with its correlation IDs. */
type Received = ApplicationDownlink & { correlation_ids: string[] };

/**
 * The AppAs downlink queue (wire contract §9; TTS `applicationserver.go` downlinkQueueOp,
 * DownlinkQueueList): each downlink gets an `as:downlink:<ULID>` correlation ID and
 * `as.down.data.receive`; a `decoded_payload` is encoded with the device's down formatter (else
 * the application link's default, TTS `payload.go`); a confirmed one gets `confirmed_retry`
 * (attempt 1; at most MAX_CONFIRMED_ATTEMPTS attempts). The queue itself is the Network
 * Server's, as in TTS: DownlinkQueueOperation encrypts the downlinks for the device's sessions and
 * pushes them to the NS (Replace: replaces the NS's queue), encrypting again when the NS refuses
 * their FCnts; List reads the NS's queue and decrypts the current session's items. A request is
 * all or nothing: on any error (bad input, no session, the NS's refusal, no NS: `peer_unavailable`,
 * 503) nothing is queued, every item gets `as.down.data.drop` and a `downlink_failed`
 * ApplicationUp, and the error is the answer; on success `as.down.data.forward` per item queued
 * and a `downlink_queued` ApplicationUp per item (DownlinkReports).
 */
@Injectable()
export class DownlinkQueue {
  constructor(
    @Inject(DeviceRegistry) private readonly registry: DeviceRegistry<AsDevice>,
    @Inject(PayloadFormatter) private readonly formatter: PayloadFormatter,
    @Inject(EventPublisher) private readonly events: EventPublisher,
    @Inject(ApplicationLinkRegistry) private readonly links: ApplicationLinkRegistry,
    @Inject(DownlinkQueueOperation) private readonly operation: DownlinkQueueOperation,
    @Inject(DownlinkReports) private readonly reports: DownlinkReports,
    @Inject(DownlinkPayloads) private readonly payloads: DownlinkPayloads,
    @Inject(NetworkServerQueue) private readonly ns: NetworkServerQueue,
  ) {}

  push(req: DownlinkQueueRequest, ctx: RpcContext): Promise<Record<string, never>> {
    return this.operate(req, ctx, 'push');
  }

  replace(req: DownlinkQueueRequest, ctx: RpcContext): Promise<Record<string, never>> {
    return this.operate(req, ctx, 'replace');
  }

  /** The NS's queue of the device's session (the current one, else the pending one), decrypted and decoded (`{}` when empty). */
  async list(ids: EndDeviceIdentifiers, ctx: RpcContext): Promise<ApplicationDownlinks> {
    const device = await this.registry.stored({ application_id: ids.application_ids.application_id, device_id: ids.device_id });
    const queue = await this.ns.list(device.ids, ctx);
    if (!queue.length) return {};
    const session = device.session ?? device.pending_session;
    if (!session) throw ErrNoDeviceSession.with();
    const link = await this.links.find(ids.application_ids.application_id);
    const downlinks: ApplicationDownlink[] = [];
    for (const queued of queue) {
      if (sessionOf(device, queued.session_key_id) !== session) continue;
      const item = { ...queued };
      await this.payloads.open(item, device, link, session, ctx);
      downlinks.push(item);
    }
    return downlinks.length ? { downlinks } : {};
  }

  private async operate(req: DownlinkQueueRequest, ctx: RpcContext, operation: NsQueueOperation): Promise<Record<string, never>> {
    const ids = req.end_device_ids;
    const received = (req.downlinks ?? []).map((d) => this.receive(d, ctx));
    for (const item of received)
      this.events.publish(AS_EVENTS.downDataReceive, deviceIdentifiers(ids), { ctx: { ...ctx, correlation_ids: item.correlation_ids }, data: item });
    const receivedAt = nowTimestamp();
    /** The device's identifiers as stored (with its EUIs and DevAddr), once read. */
    let device: AsDevice | undefined;
    try {
      const [stored, link] = await Promise.all([
        this.registry.stored({ application_id: ids.application_ids.application_id, device_id: ids.device_id }),
        this.links.find(ids.application_ids.application_id),
      ]);
      device = stored;
      if (!device.session?.dev_addr && !device.pending_session?.dev_addr) throw ErrNoDeviceSession.with();
      const items: ApplicationDownlink[] = [];
      for (const item of received) items.push(await this.prepare(item, device, link));
      const { encrypted, first } = await this.operation.run({ device, link, items, operation, ctx });
      // As the application sees each item: plaintext, with its FCnt and session in the first session.
      const queued = items.map((item, i) => ({ ...item, session_key_id: first[i]?.session_key_id, f_cnt: first[i]?.f_cnt }));
      await this.reports.queued(ids, device.ids, queued, encrypted, receivedAt, ctx);
    } catch (err) {
      await this.reports.dropped(ids, device?.ids ?? ids, received, receivedAt, err, ctx);
      throw err;
    }
    return {};
  }

  /**
   * The downlink as received: TTS's kept fields (`io.CleanDownlinks`; `session_key_id` and `f_cnt`
   * count only when the AS skips payload crypto) plus its correlation IDs.
   */
  private receive(d: ApplicationDownlink, ctx: RpcContext): Received {
    const item = inOrder(d, RECEIVED_FIELDS);
    const correlation_ids = [...new Set([...(d.correlation_ids ?? []), `as:downlink:${newUlid()}`, ...ctx.correlation_ids])];
    return { ...item, correlation_ids };
  }

  /**
   * Checks the FPort, encodes a `decoded_payload` with the device's formatter (else the link's
   * default), checks the size and the confirmed attempts: the item to queue, FRMPayload in plaintext.
   * A formatter failure is 400 `encode_payload` with the script's error as its cause; 429
   * `formatter_busy` / `formatter_suspended` when the application's formatter calls are queued to
   * their bound or its scripts ran into the limits too often.
   */
  private async prepare(received: Received, device: AsDevice, link: ApplicationLink | undefined): Promise<ApplicationDownlink> {
    const item: ApplicationDownlink = { ...received };
    let fPort = item.f_port;
    if (!fPort) throw ErrNoFPort.with();
    if (fPort > MAX_APPLICATION_F_PORT) throw ErrFPortRange.with({ f_port: fPort });
    let payload = Buffer.from(item.frm_payload ?? '', 'base64');
    if (item.frm_payload === undefined && item.decoded_payload !== undefined) {
      const { formatter, parameter } = formatterFor('down', device, link);
      const encoded = await this.formatter.encodeDownlink(
        { applicationId: device.ids.application_ids.application_id, data: item.decoded_payload, fPort },
        formatter,
        parameter,
      );
      if (encoded?.error) throw isFormatterRefusal(encoded.error) ? encoded.error : ErrEncodePayload.with({}, encoded.error);
      if (encoded?.bytes) {
        payload = Buffer.from(encoded.bytes);
        if (encoded.fPort !== undefined && encoded.fPort !== fPort) {
          fPort = encoded.fPort;
          if (!fPort) throw ErrNoFPort.with();
          if (fPort > MAX_APPLICATION_F_PORT) throw ErrFPortRange.with({ f_port: fPort });
          item.f_port = fPort;
        }
      }
    }
    if (payload.length > MAX_DOWNLINK_PAYLOAD) throw ErrPayloadTooLarge.with({ size: payload.length, max: MAX_DOWNLINK_PAYLOAD });
    if (payload.length) item.frm_payload = payload.toString('base64');
    else delete item.frm_payload;
    if (item.confirmed === true) {
      const retry = item.confirmed_retry ?? { attempt: 1 };
      if (Number(retry.max_attempts ?? 0) > MAX_CONFIRMED_ATTEMPTS) throw ErrDownlinkMaxRetriesInvalid.with({ max: MAX_CONFIRMED_ATTEMPTS });
      item.confirmed_retry = retry;
    }
    return item;
  }
}
