import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  AS_EVENTS,
  type ApplicationDownlink,
  type ApplicationDownlinksJson,
  type ApplicationLink,
  type ApplicationUpJson,
  deviceIdentifiers,
  type DownlinkQueueRequest,
  type EndDeviceIdentifiers,
  nowTimestamp,
  type RpcContext,
  newUlid,
} from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { encryptFrmPayload } from '@lorawan/crypto';
import { isStackError, type StackError } from '@lorawan/errors';
import { type DeviceIds, DeviceRegistry } from '@lorawan/registry';
import type { AsDevice, AsSession } from '../end-devices/as-device';
import { ErrEncodePayload, ErrFPortRange, ErrNoAppSKey, ErrNoDeviceSession, ErrNoFPort, ErrPayloadTooLarge } from '../errors';
import { PayloadFormatter } from '../formatters/payload-formatter.service';
import { APPLICATION_UP_SINK, type ApplicationUpSink } from '../integrations/application-up-sink';
import { ApplicationLinkRegistry } from '../uplinks/link/application-link.service';
import { formatterFor } from '../uplinks/link/link-settings';

/** Application FPorts (224 is the LoRaWAN test protocol, above are reserved). */
export const MAX_APPLICATION_F_PORT = 223;
/** The largest FRMPayload of any data rate (LoRaWAN regional parameters: 250-byte MACPayload − 8). */
export const MAX_DOWNLINK_PAYLOAD = 242;

type Json = Record<string, unknown>;

/** A downlink as received, with its correlation IDs and its payload (plain bytes), ready to be queued. */
interface Prepared {
  plain: Json;
  payload: Buffer;
}

/** What a stored queue operation produced: each item as queued (encrypted) and as the application sees it (plaintext). */
interface Queued {
  encrypted: Json[];
  plaintext: Json[];
  ids: DeviceIds;
}

/** ApplicationDownlink fields in proto order (how a downlink_queued item is written). */
const DOWNLINK_FIELDS = [
  'session_key_id',
  'f_port',
  'f_cnt',
  'frm_payload',
  'decoded_payload',
  'decoded_payload_warnings',
  'confirmed',
  'class_b_c',
  'priority',
  'correlation_ids',
  'confirmed_retry',
];

/**
 * The AppAs downlink queue (wire contract §9; TTS `applicationserver.go` downlinkQueueOp): each
 * downlink gets an `as:downlink:<ULID>` correlation ID and `as.down.data.receive`; a
 * `decoded_payload` is encoded with the device's down formatter (else the application link's
 * default, TTS `payload.go`); the queue lives in the AS device
 * session (`session.queued_application_downlinks`), each item with the next application FCnt
 * (`last_a_f_cnt_down` + 1) and its FRMPayload encrypted with the session's AppSKey, as TTS's AS
 * hands them to the NS. A request is all or nothing: on any error nothing is stored and every item
 * gets `as.down.data.drop`; on success `as.down.data.forward` (data: the encrypted item).
 *
 * The integrations (APPLICATION_UP_SINK: webhooks) get an ApplicationUp per item, as TTS
 * `registerForwardDownlinks` / `registerDropDownlinks`: `downlink_queued` (the item as the
 * application sees it: plaintext FRMPayload, `decoded_payload` if any, its FCnt and session) once
 * the queue is stored, or `downlink_failed` (the item and the error) when the request fails. Both
 * are awaited, but a sink failure only logs a warning: the queue is stored, and the request's own
 * error stays the answer.
 */
@Injectable()
export class DownlinkQueue {
  private readonly logger = new Logger('DownlinkQueue');

  constructor(
    @Inject(DeviceRegistry) private readonly registry: DeviceRegistry,
    @Inject(PayloadFormatter) private readonly formatter: PayloadFormatter,
    @Inject(EventPublisher) private readonly events: EventPublisher,
    @Inject(ApplicationLinkRegistry) private readonly links: ApplicationLinkRegistry,
    @Inject(APPLICATION_UP_SINK) private readonly sink: ApplicationUpSink,
  ) {}

  push(req: DownlinkQueueRequest, ctx: RpcContext): Promise<Json> {
    return this.operate(req, ctx, false);
  }

  replace(req: DownlinkQueueRequest, ctx: RpcContext): Promise<Json> {
    return this.operate(req, ctx, true);
  }

  /** The queue, decrypted (`{}` when empty). */
  async list(ids: EndDeviceIdentifiers): Promise<ApplicationDownlinksJson> {
    const device = (await this.registry.stored({ application_id: ids.application_ids.application_id, device_id: ids.device_id })) as AsDevice;
    const session = device.session;
    const queue = session?.queued_application_downlinks ?? [];
    if (!queue.length) return {};
    const link = await this.links.find(ids.application_ids.application_id);
    const { formatter, parameter } = formatterFor('down', device, link);
    const appSKey = device.skip_payload_crypto ? undefined : this.appSKey(session);
    const downlinks: Json[] = [];
    for (const item of queue) {
      const out = { ...item };
      if (appSKey && session?.dev_addr && typeof item.frm_payload === 'string') {
        const plain = encryptFrmPayload(appSKey, session.dev_addr, Number(item.f_cnt ?? 0), false, Buffer.from(item.frm_payload, 'base64'));
        out.frm_payload = plain.toString('base64');
        const decoded = await this.formatter.decodeDownlink({ bytes: plain, fPort: Number(item.f_port ?? 0) }, formatter, parameter);
        if (decoded) out.decoded_payload = decoded;
      }
      if (out.frm_payload === '') delete out.frm_payload;
      downlinks.push(out);
    }
    return { downlinks };
  }

  private async operate(req: DownlinkQueueRequest, ctx: RpcContext, replace: boolean): Promise<Json> {
    const ids = req.end_device_ids;
    const identifiers = deviceIdentifiers(ids);
    const received = (req.downlinks ?? []).map((d) => this.receive(d, ctx));
    for (const item of received) this.events.publish(AS_EVENTS.downDataReceive, identifiers, { ctx: withIds(ctx, item.correlation_ids), data: item });
    const receivedAt = nowTimestamp();
    /** The device's identifiers as stored (with its EUIs and DevAddr), once read. */
    let deviceIds: DeviceIds | undefined;
    let queued: Queued;
    try {
      const link = await this.links.find(ids.application_ids.application_id);
      queued = await this.registry.modify({ application_id: ids.application_ids.application_id, device_id: ids.device_id }, async (stored) => {
        const device = stored as AsDevice;
        deviceIds = device.ids;
        const session = device.session;
        if (!session?.dev_addr || !session.keys) throw ErrNoDeviceSession.with();
        const prepared: Prepared[] = [];
        for (const item of received) prepared.push(await this.prepare(item, device, link));
        const appSKey = device.skip_payload_crypto ? undefined : this.appSKey(session);
        const current = replace ? [] : (session.queued_application_downlinks ?? []);
        let fCnt = Math.max(session.last_a_f_cnt_down ?? 0, ...current.map((q) => Number(q.f_cnt ?? 0)));
        const plaintext: Json[] = [];
        const encrypted = prepared.map(({ plain, payload }) => {
          fCnt += 1;
          const frm = appSKey ? encryptFrmPayload(appSKey, session.dev_addr as string, fCnt, false, payload) : payload;
          const out: Json = { ...plain, f_cnt: fCnt, frm_payload: frm.toString('base64') };
          if (session.keys?.session_key_id) out.session_key_id = session.keys.session_key_id;
          plaintext.push(inProtoOrder({ ...out, frm_payload: payload.toString('base64') }));
          delete out.decoded_payload;
          if (!payload.length) delete out.frm_payload;
          return out;
        });
        const queue = [...current, ...encrypted];
        if (queue.length) session.queued_application_downlinks = queue;
        else delete session.queued_application_downlinks;
        if (encrypted.length) session.last_a_f_cnt_down = fCnt;
        return { device, result: { encrypted, plaintext, ids: device.ids } };
      });
    } catch (err) {
      const details = isStackError(err) ? (err as StackError).toDetails() : { message: (err as Error).message };
      for (const item of received) this.events.publish(AS_EVENTS.downDataDrop, identifiers, { ctx: withIds(ctx, item.correlation_ids), data: details });
      const endDeviceIds = upIdentifiers(deviceIds ?? ids);
      for (const item of received) {
        const downlink_failed: Json = { downlink: inProtoOrder(item), ...(isStackError(err) ? { error: (err as StackError).toDetails() } : {}) };
        await this.publishUp({ end_device_ids: endDeviceIds, correlation_ids: item.correlation_ids, received_at: receivedAt, downlink_failed });
      }
      throw err;
    }
    for (const item of queued.encrypted)
      this.events.publish(AS_EVENTS.downDataForward, identifiers, { ctx: withIds(ctx, item.correlation_ids as string[]), data: item });
    const endDeviceIds = upIdentifiers(queued.ids);
    for (const item of queued.plaintext) {
      await this.publishUp({ end_device_ids: endDeviceIds, correlation_ids: item.correlation_ids as string[], received_at: receivedAt, downlink_queued: item });
    }
    return {};
  }

  /** Hands an ApplicationUp to the integrations; a failure is logged (never the message), not raised. */
  private async publishUp(up: ApplicationUpJson): Promise<void> {
    try {
      await this.sink.publish(up);
    } catch (err) {
      const kind = up.downlink_queued ? 'downlink_queued' : 'downlink_failed';
      this.logger.warn(
        `${kind} of ${up.end_device_ids.application_ids.application_id}.${up.end_device_ids.device_id} not queued for the integrations: ${(err as Error)?.message ?? String(err)}`,
      );
    }
  }

  /** The downlink as received: TTS's kept fields plus its correlation IDs. */
  private receive(d: ApplicationDownlink, ctx: RpcContext): Json & { correlation_ids: string[] } {
    const item: Json = {};
    for (const key of ['f_port', 'frm_payload', 'decoded_payload', 'confirmed', 'class_b_c', 'priority'] as const) {
      if (d[key] !== undefined) item[key] = d[key];
    }
    const correlation_ids = [...new Set([...(d.correlation_ids ?? []), `as:downlink:${newUlid()}`, ...ctx.correlation_ids])];
    return { ...item, correlation_ids };
  }

  /** Checks the FPort, encodes a `decoded_payload` with the device's formatter (else the link's default), checks the size. */
  private async prepare(item: Json, device: AsDevice, link: ApplicationLink | undefined): Promise<Prepared> {
    let fPort = item.f_port as number | undefined;
    if (!fPort) throw ErrNoFPort.with();
    if (fPort > MAX_APPLICATION_F_PORT) throw ErrFPortRange.with({ f_port: fPort });
    let payload = Buffer.from((item.frm_payload as string | undefined) ?? '', 'base64');
    const plain: Json = { ...item };
    if (item.frm_payload === undefined && item.decoded_payload !== undefined) {
      const { formatter, parameter } = formatterFor('down', device, link);
      const encoded = await this.formatter.encodeDownlink({ data: item.decoded_payload as Json, fPort }, formatter, parameter);
      if (encoded?.error) throw ErrEncodePayload.with({}, encoded.error);
      if (encoded?.bytes) {
        payload = Buffer.from(encoded.bytes);
        if (encoded.fPort !== undefined && encoded.fPort !== fPort) {
          fPort = encoded.fPort;
          if (!fPort) throw ErrNoFPort.with();
          if (fPort > MAX_APPLICATION_F_PORT) throw ErrFPortRange.with({ f_port: fPort });
          plain.f_port = fPort;
        }
      }
    }
    if (payload.length > MAX_DOWNLINK_PAYLOAD) throw ErrPayloadTooLarge.with({ size: payload.length, max: MAX_DOWNLINK_PAYLOAD });
    return { plain, payload };
  }

  private appSKey(session: AsSession | undefined): string {
    const envelope = session?.keys?.app_s_key;
    const key = envelope ? this.registry.openKey(envelope).key : undefined;
    if (!key) throw ErrNoAppSKey.with();
    return key;
  }
}

function withIds(ctx: RpcContext, correlationIds: string[]): RpcContext {
  return { ...ctx, correlation_ids: correlationIds };
}

/** A device's identifiers as an ApplicationUp's `end_device_ids` (EUIs and DevAddr only when set). */
function upIdentifiers(ids: DeviceIds | EndDeviceIdentifiers): ApplicationUpJson['end_device_ids'] {
  return {
    device_id: ids.device_id,
    application_ids: { application_id: ids.application_ids.application_id },
    ...(ids.dev_eui ? { dev_eui: ids.dev_eui } : {}),
    ...(ids.join_eui ? { join_eui: ids.join_eui } : {}),
    ...(ids.dev_addr ? { dev_addr: ids.dev_addr } : {}),
  };
}

/** A downlink's fields in proto order; an empty FRMPayload is omitted (a zero value). */
function inProtoOrder(item: Json): Json {
  const out: Json = {};
  for (const key of DOWNLINK_FIELDS) if (item[key] !== undefined && !(key === 'frm_payload' && item[key] === '')) out[key] = item[key];
  return out;
}
