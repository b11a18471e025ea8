import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type ApplicationDownlink,
  type ApplicationInvalidatedDownlinks,
  type ApplicationLink,
  type ApplicationUpJson,
  type NsApplicationUp,
  nowTimestamp,
  plainJson,
  type RpcContext,
} from '@lorawan/api';
import { ErrInternal, isStackError } from '@lorawan/errors';
import { DeviceRegistry } from '@lorawan/registry';
import type { AsDevice } from '../end-devices/as-device';
import { ErrMaxRetriesReached, ErrUnknownSession } from '../errors';
import { ApplicationUpForwarder } from '../integrations/application-up-forwarder.service';
import { ApplicationLinkRegistry } from '../links/application-link.service';
import { skipsPayloadCrypto } from '../links/link-settings';
import { DownlinkPayloads, sessionOf } from './downlink-payloads.service';
import { DEFAULT_CONFIRMED_ATTEMPTS } from './downlink-queue.service';
import { DownlinkReports } from './downlink-reports.service';
import { DownlinkQueueOperation } from './queue-operation.service';

/** The Network Server's reports on downlinks (ApplicationUp kinds), in proto order. */
export const DOWNLINK_RESULT_KINDS = ['downlink_ack', 'downlink_nack', 'downlink_sent', 'downlink_failed', 'downlink_queue_invalidated'] as const;
export type DownlinkResultKind = (typeof DOWNLINK_RESULT_KINDS)[number];

/** A report of the NS, checked by NsUplinks: its device is named. */
export type NsDownlinkResult = NsApplicationUp & { end_device_ids: NonNullable<NsApplicationUp['end_device_ids']> };

/**
 * What the Network Server reports on the downlinks it took from the queue (TTS
 * `applicationserver.go` handleUp, decryptDownlinkMessage, handleDownlinkNack,
 * handleDownlinkQueueInvalidated), received through `NsAs.HandleUplink`:
 *
 * - `downlink_sent`, `downlink_ack`, `downlink_failed`: the downlink's FRMPayload, as the NS has it
 *   (encrypted), is decrypted with the AppSKey of the session its `session_key_id` names (current
 *   or pending; else `unknown_session`, unless the AS skips payload crypto for the device) and
 *   decoded with the down formatter; then the message goes to the integrations with
 *   `as.down.data.sent|ack|failed.forward`.
 * - `downlink_nack`: the same, and the confirmed downlink is queued again (pushed to the NS,
 *   encrypted with the next FCnt) with its `confirmed_retry.attempt` one higher; past its
 *   `max_attempts` (else DEFAULT_CONFIRMED_ATTEMPTS) it is not, and gets a `downlink_failed`
 *   (`max_retries_reached`) instead. The nack (with the new attempt) goes on with
 *   `as.down.data.nack.forward`.
 * - `downlink_queue_invalidated`: the NS dropped a session's queue whose FCnts it had passed; the
 *   AS decrypts the items (those it cannot: `as.down.data.drop`), encrypts them again from the
 *   NS's `last_f_cnt_down` and pushes them. As in TTS the message does not go to the
 *   integrations (the application sees nothing change), unless the AS skips payload crypto for
 *   the device: then the application must rebuild the queue, and it gets the message.
 *
 * A re-queue the NS refuses gives each item a `downlink_failed` and `as.down.data.drop`. Any
 * failure is the answer to the NS (as NsUplinks does for uplinks); TTS's AS logs it and answers OK.
 */
@Injectable()
export class DownlinkResults {
  private readonly logger = new Logger('DownlinkResults');

  constructor(
    @Inject(DeviceRegistry) private readonly registry: DeviceRegistry<AsDevice>,
    @Inject(ApplicationLinkRegistry) private readonly links: ApplicationLinkRegistry,
    @Inject(DownlinkPayloads) private readonly payloads: DownlinkPayloads,
    @Inject(DownlinkQueueOperation) private readonly operation: DownlinkQueueOperation,
    @Inject(DownlinkReports) private readonly reports: DownlinkReports,
    @Inject(ApplicationUpForwarder) private readonly upstream: ApplicationUpForwarder,
  ) {}

  async handle(kind: DownlinkResultKind, request: NsDownlinkResult, ctx: RpcContext): Promise<void> {
    const up: ApplicationUpJson = {
      end_device_ids: { ...plainJson(request.end_device_ids) },
      correlation_ids: request.correlation_ids ?? [],
      received_at: nowTimestamp(),
    };
    const handling = this.handling(kind, request, up);
    const eventCtx = this.upstream.correlate(up, ctx);
    const ids = request.end_device_ids;
    let pass: boolean;
    try {
      const [device, link] = await Promise.all([
        this.registry.stored({ application_id: ids.application_ids.application_id, device_id: ids.device_id }),
        this.links.find(ids.application_ids.application_id),
      ]);
      pass = await handling({ device, link, up, ctx: eventCtx });
    } catch (err) {
      const log = { device_uid: `${ids.application_ids.application_id}.${ids.device_id}`, kind, correlation_ids: up.correlation_ids };
      // Only our own errors' messages (never a driver's, which may quote what was written); the RPC filter logs the others.
      this.logger.warn({ ...log, error: isStackError(err) ? err.fullMessage : 'internal' }, 'downlink report dropped');
      throw err;
    }
    if (pass) await this.upstream.forward(up, eventCtx);
  }

  /**
   * The report as `up`'s `kind` (a copy, which the handling decrypts and decodes in place), and
   * its handling: whether the message then goes on to the integrations.
   */
  private handling(kind: DownlinkResultKind, request: NsDownlinkResult, up: ApplicationUpJson): (report: Report) => Promise<boolean> {
    switch (kind) {
      case 'downlink_sent':
      case 'downlink_ack':
      case 'downlink_nack': {
        const downlink = { ...plainJson(request[kind]) };
        up[kind] = downlink;
        return (report) => (kind === 'downlink_nack' ? this.nack(downlink, report) : this.open(downlink, report));
      }
      case 'downlink_failed': {
        const failed = { ...plainJson(request.downlink_failed) };
        up.downlink_failed = failed;
        // NsUplinks checked that the report names its downlink.
        const downlink = failed.downlink;
        return (report) => (downlink ? this.open(downlink, report) : Promise.reject(ErrInternal.with()));
      }
      case 'downlink_queue_invalidated': {
        const invalidated = { ...plainJson(request.downlink_queue_invalidated) };
        up.downlink_queue_invalidated = invalidated;
        return (report) => this.invalidated(invalidated, report);
      }
    }
  }

  /** TTS decryptDownlinkMessage: the downlink decrypted and decoded in place. */
  private async open(downlink: ApplicationDownlink, { device, link, ctx }: Report): Promise<boolean> {
    const session = sessionOf(device, downlink.session_key_id);
    if (!session) {
      if (skipsPayloadCrypto(device, link)) return true;
      throw ErrUnknownSession.with();
    }
    await this.payloads.open(downlink, device, link, session, ctx);
    return true;
  }

  /** TTS handleDownlinkNack: decrypted, its attempt counted, queued again (or failed past its last attempt). */
  private async nack(downlink: ApplicationDownlink, report: Report): Promise<boolean> {
    const { device, link, up, ctx } = report;
    const session = sessionOf(device, downlink.session_key_id);
    if (!session || !this.payloads.appSKey(device, link, session)) return this.open(downlink, report);
    await this.payloads.open(downlink, device, link, session, ctx);
    const retry = { ...downlink.confirmed_retry };
    retry.attempt = Number(retry.attempt ?? 0) + 1;
    downlink.confirmed_retry = retry;
    const max = Number(retry.max_attempts ?? DEFAULT_CONFIRMED_ATTEMPTS);
    const receivedAt = up.received_at ?? '';
    if (retry.attempt > max) {
      await this.reports.dropped(device.ids, device.ids, [downlink], receivedAt, ErrMaxRetriesReached.with({ max_retries: max }), ctx);
      return true;
    }
    try {
      await this.operation.run({ device, link, items: [downlink], operation: 'push', ctx });
    } catch (err) {
      await this.reports.dropped(device.ids, device.ids, [downlink], receivedAt, err, ctx);
      throw err;
    }
    return true;
  }

  /** TTS handleDownlinkQueueInvalidated: the items decrypted and pushed again from the NS's last FCnt; not for the integrations. */
  private async invalidated(invalidated: ApplicationInvalidatedDownlinks, { device, link, up, ctx }: Report): Promise<boolean> {
    const sessionKeyId = invalidated.session_key_id;
    const session = sessionOf(device, sessionKeyId);
    if (!session || !this.payloads.appSKey(device, link, session)) {
      if (skipsPayloadCrypto(device, link)) return true;
      throw ErrUnknownSession.with();
    }
    const items = this.payloads.decryptQueued(device, link, invalidated.downlinks ?? [], ctx);
    if (items.length === 0) return false;
    const lastAFCntDown = { session_key_id: sessionKeyId, f_cnt: Number(invalidated.last_f_cnt_down ?? 0) };
    try {
      await this.operation.run({ device, link, items, operation: 'push', ctx, lastAFCntDown });
    } catch (err) {
      await this.reports.dropped(device.ids, device.ids, items, up.received_at ?? '', err, ctx);
      throw err;
    }
    return false;
  }
}

interface Report {
  device: AsDevice;
  link: ApplicationLink | undefined;
  up: ApplicationUpJson;
  ctx: RpcContext;
}
