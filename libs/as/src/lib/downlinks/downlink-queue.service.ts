import { Inject, Injectable } from '@nestjs/common';
import { monotonicFactory } from 'ulid';
import { AS_EVENTS, type ApplicationDownlink, type ApplicationDownlinksJson, deviceIdentifiers, type DownlinkQueueRequest, type EndDeviceIdentifiers, type RpcContext } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { encryptFrmPayload } from '@lorawan/crypto';
import { isStackError, type StackError } from '@lorawan/errors';
import { type Device, DeviceRegistry, type KeyEnvelopeJson } from '@lorawan/registry';
import { ErrEncodePayload, ErrFPortRange, ErrNoAppSKey, ErrNoDeviceSession, ErrNoFPort, ErrPayloadTooLarge } from '../errors';
import { PayloadFormatter } from '../formatters/payload-formatter.service';

const ulid = monotonicFactory();

/** Application FPorts (224 is the LoRaWAN test protocol, above are reserved). */
export const MAX_APPLICATION_F_PORT = 223;
/** The largest FRMPayload of any data rate (LoRaWAN regional parameters: 250-byte MACPayload − 8). */
export const MAX_DOWNLINK_PAYLOAD = 242;

type Json = Record<string, unknown>;
interface AsSession {
  dev_addr?: string;
  keys?: { session_key_id?: string; app_s_key?: KeyEnvelopeJson };
  last_a_f_cnt_down?: number;
  queued_application_downlinks?: Json[];
}
type AsDevice = Device & { session?: AsSession; formatters?: { down_formatter?: string; down_formatter_parameter?: string }; skip_payload_crypto?: boolean };

/** A downlink as received, with its correlation IDs and its payload (plain bytes), ready to be queued. */
interface Prepared {
  plain: Json;
  payload: Buffer;
}

/**
 * The AppAs downlink queue (wire contract §9; TTS `applicationserver.go` downlinkQueueOp): each
 * downlink gets an `as:downlink:<ULID>` correlation ID and `as.down.data.receive`; a
 * `decoded_payload` is encoded with the device's down formatter; the queue lives in the AS device
 * session (`session.queued_application_downlinks`), each item with the next application FCnt
 * (`last_a_f_cnt_down` + 1) and its FRMPayload encrypted with the session's AppSKey, as TTS's AS
 * hands them to the NS. A request is all or nothing: on any error nothing is stored and every item
 * gets `as.down.data.drop`; on success `as.down.data.forward` (data: the encrypted item).
 */
@Injectable()
export class DownlinkQueue {
  constructor(
    @Inject(DeviceRegistry) private readonly registry: DeviceRegistry,
    @Inject(PayloadFormatter) private readonly formatter: PayloadFormatter,
    @Inject(EventPublisher) private readonly events: EventPublisher,
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
    const appSKey = device.skip_payload_crypto ? undefined : this.appSKey(session);
    const downlinks = queue.map((item) => {
      const out = { ...item };
      if (appSKey && session?.dev_addr && typeof item.frm_payload === 'string') {
        const plain = encryptFrmPayload(appSKey, session.dev_addr, Number(item.f_cnt ?? 0), false, Buffer.from(item.frm_payload, 'base64'));
        out.frm_payload = plain.toString('base64');
        const decoded = this.formatter.decodeDownlink(plain, device.formatters?.down_formatter);
        if (decoded) out.decoded_payload = decoded;
      }
      if (out.frm_payload === '') delete out.frm_payload;
      return out;
    });
    return { downlinks };
  }

  private async operate(req: DownlinkQueueRequest, ctx: RpcContext, replace: boolean): Promise<Json> {
    const ids = req.end_device_ids;
    const identifiers = deviceIdentifiers(ids);
    const received = (req.downlinks ?? []).map((d) => this.receive(d, ctx));
    for (const item of received) this.events.publish(AS_EVENTS.downDataReceive, identifiers, { ctx: withIds(ctx, item.correlation_ids), data: item });
    try {
      const forwarded = await this.registry.modify({ application_id: ids.application_ids.application_id, device_id: ids.device_id }, async (stored) => {
        const device = stored as AsDevice;
        const session = device.session;
        if (!session?.dev_addr || !session.keys) throw ErrNoDeviceSession.with();
        const prepared: Prepared[] = [];
        for (const item of received) prepared.push(await this.prepare(item, device));
        const appSKey = device.skip_payload_crypto ? undefined : this.appSKey(session);
        const current = replace ? [] : (session.queued_application_downlinks ?? []);
        let fCnt = Math.max(session.last_a_f_cnt_down ?? 0, ...current.map((q) => Number(q.f_cnt ?? 0)));
        const queued = prepared.map(({ plain, payload }) => {
          fCnt += 1;
          const frm = appSKey ? encryptFrmPayload(appSKey, session.dev_addr as string, fCnt, false, payload) : payload;
          const out: Json = { ...plain, f_cnt: fCnt, frm_payload: frm.toString('base64') };
          if (session.keys?.session_key_id) out.session_key_id = session.keys.session_key_id;
          delete out.decoded_payload;
          if (!payload.length) delete out.frm_payload;
          return out;
        });
        const queue = [...current, ...queued];
        if (queue.length) session.queued_application_downlinks = queue;
        else delete session.queued_application_downlinks;
        if (queued.length) session.last_a_f_cnt_down = fCnt;
        return { device, result: queued };
      });
      for (const item of forwarded) this.events.publish(AS_EVENTS.downDataForward, identifiers, { ctx: withIds(ctx, item.correlation_ids as string[]), data: item });
      return {};
    } catch (err) {
      const details = isStackError(err) ? (err as StackError).toDetails() : { message: (err as Error).message };
      for (const item of received) this.events.publish(AS_EVENTS.downDataDrop, identifiers, { ctx: withIds(ctx, item.correlation_ids), data: details });
      throw err;
    }
  }

  /** The downlink as received: TTS's kept fields plus its correlation IDs. */
  private receive(d: ApplicationDownlink, ctx: RpcContext): Json & { correlation_ids: string[] } {
    const item: Json = {};
    for (const key of ['f_port', 'frm_payload', 'decoded_payload', 'confirmed', 'class_b_c', 'priority'] as const) {
      if (d[key] !== undefined) item[key] = d[key];
    }
    const correlation_ids = [...new Set([...(d.correlation_ids ?? []), `as:downlink:${ulid()}`, ...ctx.correlation_ids])];
    return { ...item, correlation_ids };
  }

  /** Checks the FPort, encodes a `decoded_payload` with the device's formatter, checks the size. */
  private async prepare(item: Json, device: AsDevice): Promise<Prepared> {
    let fPort = item.f_port as number | undefined;
    if (!fPort) throw ErrNoFPort.with();
    if (fPort > MAX_APPLICATION_F_PORT) throw ErrFPortRange.with({ f_port: fPort });
    let payload = Buffer.from((item.frm_payload as string | undefined) ?? '', 'base64');
    const plain: Json = { ...item };
    if (item.frm_payload === undefined && item.decoded_payload !== undefined) {
      const { down_formatter, down_formatter_parameter } = device.formatters ?? {};
      const encoded = await this.formatter.encodeDownlink({ data: item.decoded_payload as Json, fPort }, down_formatter, down_formatter_parameter);
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
