import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type ApplicationDownlink,
  type ApplicationUpJson,
  type KeyEnvelope,
  type NsApplicationUp,
  nowTimestamp,
  plainJson,
  type RpcContext,
} from '@lorawan/api';
import { isStackError } from '@lorawan/errors';
import { DeviceRegistry } from '@lorawan/registry';
import type { AsDevice } from '../end-devices/as-device';
import { AppSKeys } from '../end-devices/app-s-keys.service';
import { ApplicationUpForwarder } from '../integrations/application-up-forwarder.service';
import { DownlinkPayloads } from '../downlinks/downlink-payloads.service';
import { DownlinkReports } from '../downlinks/downlink-reports.service';
import { DownlinkQueueOperation } from '../downlinks/queue-operation.service';
import { ApplicationLinkRegistry } from '../links/application-link.service';
import { skipsPayloadCrypto } from '../links/link-settings';

/** A join-accept as the NS sends it, checked by NsUplinks: the new DevAddr and the session key ID are there. */
export type NsJoinAccept = NsApplicationUp & {
  end_device_ids: NonNullable<NsApplicationUp['end_device_ids']> & { dev_addr: string };
  join_accept: NonNullable<NsApplicationUp['join_accept']> & { session_key_id: string };
};

/** What the log lines of a join-accept carry. */
interface JoinLog {
  device_uid: string;
  session_key_id: string;
  correlation_ids?: string[];
}

/** The AS device before and after the join-accept (as stored), and how many downlinks its own legacy queue held. */
interface StoredSession {
  previous: AsDevice;
  device: AsDevice;
  dropped: number;
}

/**
 * A join-accept from the Network Server (TTS `applicationserver.go` handleJoinAccept): the new
 * session becomes the device's `pending_session` (its DevAddr, session key ID and AppSKey: the
 * envelope the NS brought, opened with the AS's KEKs, else fetched from the JS; sealed at rest by
 * the registry). As TTS, the current `session` and `ids.dev_addr` stay until the device's first
 * uplink in the new session confirms it, and a previous pending session is replaced. A downlink
 * queue the AS device still holds in its current session (from before the queue moved to the NS,
 * where it is now, as in TTS) is dropped: it is encrypted for a session the device has left by
 * joining.
 *
 * The NS hands back the queue of the session the device leaves (`invalidated_downlinks`, TTS): the
 * items are decrypted with the AppSKey of the session they were encrypted for (as the AS device
 * held it before this join-accept; an item it cannot decrypt: `as.down.data.drop`) and pushed
 * again, encrypted for the pending session only (the session they came from still holds them), so
 * the application's queue survives the join. Not when the AS skips payload crypto for the device
 * (the application chose the FCnts). A push the NS refuses gives each item `downlink_failed`; the
 * join stays.
 *
 * Events: `as.up.join.receive` (the device's identifiers with the new DevAddr), then
 * `as.up.join.forward` with the ApplicationUp handed to the integrations, or `as.up.join.drop`
 * with the error, which is also the caller's. The ApplicationUp never holds the AppSKey:
 * `received_at` is now, `join_accept` keeps `session_key_id`, `received_at` (the NS's) and
 * `pending_session`.
 */
@Injectable()
export class JoinAccepts {
  private readonly logger = new Logger('JoinAccepts');

  constructor(
    @Inject(DeviceRegistry) private readonly registry: DeviceRegistry<AsDevice>,
    @Inject(AppSKeys) private readonly keys: AppSKeys,
    @Inject(ApplicationUpForwarder) private readonly upstream: ApplicationUpForwarder,
    @Inject(ApplicationLinkRegistry) private readonly links: ApplicationLinkRegistry,
    @Inject(DownlinkPayloads) private readonly payloads: DownlinkPayloads,
    @Inject(DownlinkQueueOperation) private readonly operation: DownlinkQueueOperation,
    @Inject(DownlinkReports) private readonly reports: DownlinkReports,
  ) {}

  async handle(request: NsJoinAccept, ctx: RpcContext): Promise<void> {
    const { app_s_key: envelope, session_key_id, received_at, pending_session } = plainJson(request.join_accept);
    const up: ApplicationUpJson = {
      end_device_ids: { ...plainJson(request.end_device_ids) },
      correlation_ids: request.correlation_ids ?? [],
      received_at: nowTimestamp(),
      join_accept: { session_key_id, ...(received_at ? { received_at } : {}), ...(pending_session ? { pending_session } : {}) },
    };
    const eventCtx = this.upstream.correlate(up, ctx);
    const ids = request.end_device_ids;
    const log = { device_uid: `${ids.application_ids.application_id}.${ids.device_id}`, session_key_id, correlation_ids: up.correlation_ids };
    this.upstream.received(up, eventCtx);
    let stored: StoredSession;
    try {
      stored = await this.storeSession(request, envelope, eventCtx);
      if (stored.dropped > 0) this.logger.log({ ...log, count: stored.dropped }, 'downlink queue of the previous session dropped');
    } catch (err) {
      // Only our own errors' messages (never a driver's, which may quote what was written); the RPC filter logs the others.
      this.logger.warn({ ...log, error: isStackError(err) ? err.fullMessage : 'internal' }, 'join-accept dropped');
      this.upstream.dropped(up, eventCtx, err);
      throw err;
    }
    await this.upstream.forward(up, eventCtx);
    const invalidated = (request.join_accept.invalidated_downlinks ?? []).map((d) => plainJson(d));
    if (invalidated.length > 0) await this.requeue(stored, invalidated, up.received_at ?? '', log, eventCtx);
  }

  /** The queue of the session the device leaves, pushed again for the pending session (see above). */
  private async requeue(stored: StoredSession, invalidated: ApplicationDownlink[], receivedAt: string, log: JoinLog, ctx: RpcContext): Promise<void> {
    const { previous, device } = stored;
    const link = await this.links.find(device.ids.application_ids.application_id);
    if (skipsPayloadCrypto(device, link)) return;
    const items = this.payloads.decryptQueued(previous, link, invalidated, ctx);
    if (items.length === 0) return;
    const skipSessionKeyIds = [...new Set(invalidated.map((d) => d.session_key_id ?? ''))];
    try {
      await this.operation.run({ device, link, items, operation: 'push', ctx, skipSessionKeyIds });
      this.logger.log({ ...log, count: items.length }, 'downlink queue pushed again for the pending session');
    } catch (err) {
      this.logger.warn({ ...log, count: items.length, error: isStackError(err) ? err.fullMessage : 'internal' }, 'downlink queue not pushed again');
      await this.reports.dropped(device.ids, device.ids, items, receivedAt, err, ctx);
    }
  }

  /** Stores the pending session and drops the current session's queue: the device before and after, and how many downlinks that queue held. */
  private async storeSession(request: NsJoinAccept, envelope: KeyEnvelope | undefined, ctx: RpcContext): Promise<StoredSession> {
    const ids = request.end_device_ids;
    const sessionKeyId = request.join_accept.session_key_id;
    // Opened (or fetched) once, in the first round: a lost optimistic round does not ask the JS again.
    let appSKey: Promise<string> | undefined;
    const deviceKey = { application_id: ids.application_ids.application_id, device_id: ids.device_id };
    // From the device as the registry's device cache has it (read again only when it changed): only
    // its top-level fields change below, since it shares the rest with what the cache keeps.
    const read = await this.registry.stored(deviceKey);
    return this.registry.modify(
      deviceKey,
      async (stored) => {
        const device = stored;
        appSKey ??= this.keys.appSKey(
          envelope,
          { session_key_id: sessionKeyId, dev_eui: ids.dev_eui ?? device.ids.dev_eui, join_eui: ids.join_eui ?? device.ids.join_eui },
          ctx,
        );
        const key = await appSKey;
        const previous = structuredClone(device);
        const dropped = device.session?.queued_application_downlinks?.length ?? 0;
        if (device.session?.queued_application_downlinks) {
          const { queued_application_downlinks: _dropped, ...session } = device.session;
          device.session = session;
        }
        device.pending_session = { dev_addr: ids.dev_addr, keys: { session_key_id: sessionKeyId, app_s_key: { key } } };
        return { device, result: { previous, device: structuredClone(device), dropped } };
      },
      { read },
    );
  }
}
