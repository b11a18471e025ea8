import { Inject, Injectable, Logger } from '@nestjs/common';
import { type ApplicationUpJson, type KeyEnvelope, type NsApplicationUp, nowTimestamp, plainJson, type RpcContext } from '@lorawan/api';
import { decryptFrmPayload } from '@lorawan/crypto';
import { isStackError } from '@lorawan/errors';
import { DeviceRegistry } from '@lorawan/registry';
import type { AsDevice, AsSession } from '../end-devices/as-device';
import { ErrNoAppSKey } from '../errors';
import { AppSKeys } from '../end-devices/app-s-keys.service';
import { ApplicationUpForwarder } from '../integrations/application-up-forwarder.service';
import { ApplicationLinkRegistry } from '../links/application-link.service';
import { UplinkDecoder } from './uplink-decoder.service';

/** A data uplink as the NS sends it, checked by NsUplinks: the DevAddr it was sent with and its session key ID are there. */
export type NsDataUplink = NsApplicationUp & {
  end_device_ids: NonNullable<NsApplicationUp['end_device_ids']> & { dev_addr: string };
  uplink_message: NonNullable<NsApplicationUp['uplink_message']> & { session_key_id: string };
};

/** The session an uplink belongs to, its AppSKey in the clear, and the device as stored with it. */
interface MatchedSession {
  device: AsDevice;
  session: AsSession;
  appSKey: string;
}

/**
 * A data uplink from the Network Server (TTS `applicationserver.go` handleUplink, matchSession;
 * `payload.go` decryptUplink, decodeUplink). The uplink's `session_key_id` picks the session:
 * the device's `session` when it matches (nothing is written); else its `pending_session`, which
 * becomes the `session` (the device's first uplink in the session it joined: the pending one is
 * cleared, `ids.dev_addr` follows); else a session the AS does not have, rebuilt with the AppSKey
 * the Join Server gives for that ID (`AsJs.GetAppSKey`) and the uplink's DevAddr, replacing both.
 * Changes are stored with the registry's optimistic read-modify-write. The FRMPayload, encrypted
 * by the device with the AppSKey, is decrypted with the session's DevAddr and the full 32-bit
 * FCnt (uplink direction), then decoded (UplinkDecoder: a formatter failure is
 * `as.up.data.decode.fail`, and the uplink goes on without `decoded_payload`); the device's
 * `version_ids` are added, as TTS does.
 *
 * Events: `as.up.data.receive` (the NS's identifiers, with the DevAddr), then `as.up.data.forward`
 * with the ApplicationUp handed to the integrations (`received_at` now; `uplink_message` with the
 * plaintext FRMPayload and never a key), or `as.up.data.drop` with the error (unknown device,
 * AppSKey not to be had, integrations unavailable), which is also the caller's.
 *
 * Not done here: TTS's skipped payload crypto (it forwards the FRMPayload encrypted, with the
 * AppSKey and `last_a_f_cnt_down`, only when the AS cannot open the key: this AS opens every key it
 * stores or refuses it), locations, normalized payloads, activation and last-seen updates.
 */
@Injectable()
export class DataUplinks {
  private readonly logger = new Logger('DataUplinks');

  constructor(
    @Inject(DeviceRegistry) private readonly registry: DeviceRegistry<AsDevice>,
    @Inject(AppSKeys) private readonly keys: AppSKeys,
    @Inject(ApplicationLinkRegistry) private readonly links: ApplicationLinkRegistry,
    @Inject(UplinkDecoder) private readonly decoder: UplinkDecoder,
    @Inject(ApplicationUpForwarder) private readonly upstream: ApplicationUpForwarder,
  ) {}

  async handle(request: NsDataUplink, ctx: RpcContext): Promise<void> {
    // A copy the AS decrypts and decodes in place, as the message the integrations get.
    const uplink = { ...plainJson(request.uplink_message) };
    const up: ApplicationUpJson = {
      end_device_ids: { ...plainJson(request.end_device_ids) },
      correlation_ids: request.correlation_ids ?? [],
      received_at: nowTimestamp(),
      uplink_message: uplink,
    };
    const eventCtx = this.upstream.correlate(up, ctx);
    const ids = request.end_device_ids;
    this.upstream.received(up, eventCtx);
    try {
      const [{ device, session, appSKey }, link] = await Promise.all([
        this.matchSession(request, eventCtx),
        this.links.find(ids.application_ids.application_id),
      ]);
      if (typeof uplink.frm_payload === 'string') {
        const devAddr = session.dev_addr ?? ids.dev_addr;
        const plain = decryptFrmPayload(appSKey, devAddr, Number(uplink.f_cnt ?? 0), true, Buffer.from(uplink.frm_payload, 'base64'));
        if (plain.length > 0) uplink.frm_payload = plain.toString('base64');
        else delete uplink.frm_payload;
      }
      if (device.version_ids) uplink.version_ids = { ...device.version_ids };
      await this.decoder.decode(up, device, link, eventCtx);
    } catch (err) {
      const log = {
        device_uid: `${ids.application_ids.application_id}.${ids.device_id}`,
        session_key_id: request.uplink_message.session_key_id,
        correlation_ids: up.correlation_ids,
      };
      // Only our own errors' messages (never a driver's, which may quote what was written); the RPC filter logs the others.
      this.logger.warn({ ...log, error: isStackError(err) ? err.fullMessage : 'internal' }, 'data uplink dropped');
      this.upstream.dropped(up, eventCtx, err);
      throw err;
    }
    await this.upstream.forward(up, eventCtx);
  }

  /** TTS matchSession: the session of the uplink's session key ID, made the device's current one (and stored) when it is not yet. */
  private async matchSession(request: NsDataUplink, ctx: RpcContext): Promise<MatchedSession> {
    const ids = request.end_device_ids;
    const deviceKey = { application_id: ids.application_ids.application_id, device_id: ids.device_id };
    const sessionKeyId = request.uplink_message.session_key_id;
    const stored = await this.registry.stored(deviceKey);
    if (stored.session?.keys?.session_key_id === sessionKeyId) return matched(stored, stored.session, (e) => this.registry.openKey(e));
    // Fetched once, in the first round that needs it: a lost optimistic round does not ask the JS again.
    let fetched: Promise<string> | undefined;
    // From the device just read (only its top-level fields change: it shares the rest with that read).
    return this.registry.modify(
      deviceKey,
      async (current, openKey) => {
        const device = current;
        const pending = device.pending_session;
        if (device.session?.keys?.session_key_id === sessionKeyId) {
          // Made current by a concurrent uplink since the read above.
        } else if (pending?.keys?.session_key_id === sessionKeyId) {
          device.session = pending;
          delete device.pending_session;
        } else {
          fetched ??= this.keys.appSKey(
            undefined,
            { session_key_id: sessionKeyId, dev_eui: ids.dev_eui ?? device.ids.dev_eui, join_eui: ids.join_eui ?? device.ids.join_eui },
            ctx,
          );
          device.session = { dev_addr: ids.dev_addr, keys: { session_key_id: sessionKeyId, app_s_key: { key: await fetched } } };
          delete device.pending_session;
        }
        const session = device.session;
        if (session.dev_addr) device.ids = { ...device.ids, dev_addr: session.dev_addr };
        return { device, result: matched(device, session, openKey) };
      },
      { read: stored },
    );
  }
}

/** The session with its AppSKey opened; a session without a usable AppSKey is `no_app_s_key` (TTS handleUplink). */
function matched(device: AsDevice, session: AsSession, openKey: (envelope: KeyEnvelope) => KeyEnvelope): MatchedSession {
  const envelope = session.keys?.app_s_key;
  const appSKey = envelope && openKey(envelope).key;
  if (!appSKey) throw ErrNoAppSKey.with();
  return { device, session, appSKey };
}
