import { Inject, Injectable } from '@nestjs/common';
import { type ApplicationDownlink, type ApplicationLink, AS_EVENTS, deviceIdentifiers, type RpcContext } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { encryptFrmPayload } from '@lorawan/crypto';
import { isStackError } from '@lorawan/errors';
import { DeviceRegistry } from '@lorawan/registry';
import type { AsDevice, AsSession } from '../end-devices/as-device';
import { ErrNoAppSKey, ErrUnknownSession } from '../errors';
import { PayloadFormatter } from '../formatters/payload-formatter.service';
import { formatterFor, skipsPayloadCrypto } from '../links/link-settings';

/** The device's session a downlink was encrypted for, by its session key ID: the current one, else the pending one. */
export function sessionOf(device: AsDevice, sessionKeyId: string | undefined): AsSession | undefined {
  const id = sessionKeyId ?? '';
  if (device.session && (device.session.keys?.session_key_id ?? '') === id) return device.session;
  if (device.pending_session && (device.pending_session.keys?.session_key_id ?? '') === id) return device.pending_session;
  return undefined;
}

/**
 * The payloads of application downlinks (TTS `payload.go` encryptDownlink, decryptDownlink,
 * decodeDownlink): each session's AppSKey (or none, when the AS skips payload crypto for the
 * device), the FRMPayload decrypted with it (downlink direction, the session's DevAddr, the
 * item's FCnt: the same AES-CTR as encryption), and the plaintext decoded with the device's down
 * formatter, else the application link's. A decoder failure publishes `as.down.data.decode.fail`
 * (data: the error) and leaves the downlink without `decoded_payload`; warnings become
 * `decoded_payload_warnings` with `as.down.data.decode.warning`.
 */
@Injectable()
export class DownlinkPayloads {
  constructor(
    @Inject(DeviceRegistry) private readonly registry: DeviceRegistry<AsDevice>,
    @Inject(PayloadFormatter) private readonly formatter: PayloadFormatter,
    @Inject(EventPublisher) private readonly events: EventPublisher,
  ) {}

  /**
   * The session's AppSKey in the clear; undefined when there is none the AS can open and it skips
   * payload crypto for the device (TTS skipPayloadCrypto: a usable key is always used); else `no_app_s_key`.
   */
  appSKey(device: AsDevice, link: ApplicationLink | undefined, session: AsSession | undefined): string | undefined {
    const envelope = session?.keys?.app_s_key;
    const key = envelope ? this.registry.openKey(envelope).key : undefined;
    if (key) return key;
    if (skipsPayloadCrypto(device, link)) return undefined;
    throw ErrNoAppSKey.with();
  }

  /** The FRMPayload of `item` (base64) through the cipher of the session: encrypts plaintext, decrypts ciphertext. */
  crypt(item: ApplicationDownlink, session: AsSession, appSKey: string, fCnt = Number(item.f_cnt ?? 0)): string {
    const payload = Buffer.from(item.frm_payload ?? '', 'base64');
    return encryptFrmPayload(appSKey, session.dev_addr ?? '00000000', fCnt, false, payload).toString('base64');
  }

  /**
   * TTS decryptDownlink over a queue handed back by the NS: each item's FRMPayload decrypted with
   * the AppSKey of the session its `session_key_id` names. An item the AS cannot decrypt is dropped
   * (`as.down.data.drop` with the error, the item's correlation IDs); the others are returned.
   */
  decryptQueued(device: AsDevice, link: ApplicationLink | undefined, queued: ApplicationDownlink[], ctx: RpcContext): ApplicationDownlink[] {
    const items: ApplicationDownlink[] = [];
    for (const original of queued) {
      const item = { ...original };
      try {
        const session = sessionOf(device, item.session_key_id);
        const appSKey = session && this.appSKey(device, link, session);
        if (!session || !appSKey) throw ErrUnknownSession.with();
        item.frm_payload = this.crypt(item, session, appSKey);
        items.push(item);
      } catch (err) {
        const error = (isStackError(err) ? err : ErrUnknownSession.with()).toDetails();
        this.events.publish(AS_EVENTS.downDataDrop, deviceIdentifiers(device.ids), {
          ctx: { ...ctx, correlation_ids: item.correlation_ids ?? [] },
          data: error,
        });
      }
    }
    return items;
  }

  /** TTS decryptAndDecodeDownlink: `item`'s FRMPayload decrypted in place, then decoded; as it is when the AS skips payload crypto. */
  async open(item: ApplicationDownlink, device: AsDevice, link: ApplicationLink | undefined, session: AsSession, ctx: RpcContext): Promise<void> {
    const appSKey = this.appSKey(device, link, session);
    if (!appSKey) return;
    if (typeof item.frm_payload === 'string') item.frm_payload = this.crypt(item, session, appSKey);
    if (item.frm_payload === '') delete item.frm_payload;
    await this.decode(item, device, link, ctx);
  }

  /** `decoded_payload` (and its warnings) of the plaintext FRMPayload, by the device's down formatter or the link's. */
  async decode(item: ApplicationDownlink, device: AsDevice, link: ApplicationLink | undefined, ctx: RpcContext): Promise<void> {
    const { formatter, parameter } = formatterFor('down', device, link);
    const bytes = Buffer.from(item.frm_payload ?? '', 'base64');
    const decoded = await this.formatter.decodeDownlink(
      { applicationId: device.ids.application_ids.application_id, bytes, fPort: Number(item.f_port ?? 0) },
      formatter,
      parameter,
    );
    if (!decoded) return;
    const identifiers = deviceIdentifiers(device.ids);
    if (decoded.error) {
      this.events.publish(AS_EVENTS.downDataDecodeFail, identifiers, { ctx, data: decoded.error.toDetails() });
      return;
    }
    item.decoded_payload = decoded.data ?? {};
    if (decoded.warnings.length > 0) {
      item.decoded_payload_warnings = decoded.warnings;
      this.events.publish(AS_EVENTS.downDataDecodeWarning, identifiers, { ctx, data: item });
    }
  }
}
