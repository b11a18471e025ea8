import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type ApplicationDownlink,
  type ApplicationLink,
  type AsNsApplicationDownlink,
  DOWNLINK_QUEUE_OPERATION_ERROR_DETAILS_TYPE,
  type DownlinkQueueOperationErrorDetails,
  type RpcContext,
} from '@lorawan/api';
import { isStackError } from '@lorawan/errors';
import { DeviceRegistry } from '@lorawan/registry';
import type { AsDevice, AsSession } from '../end-devices/as-device';
import { ErrNoDeviceSession, ErrNoFPort, ErrRebuild } from '../errors';
import { AppSKeys } from '../end-devices/app-s-keys.service';
import { skipsPayloadCrypto } from '../links/link-settings';
import { DownlinkPayloads } from './downlink-payloads.service';
import { NetworkServerQueue, type NsQueueOperation } from './network-server-queue';

/** How often the AS encrypts again after the NS refused (TTS `maxDownlinkQueueOperationAttempts`). */
export const MAX_QUEUE_OPERATION_ATTEMPTS = 50;

type Which = 'session' | 'pending_session';
const WHICH: readonly Which[] = ['session', 'pending_session'];

/** ApplicationDownlink fields in proto order. */
export const DOWNLINK_FIELDS: readonly (keyof ApplicationDownlink)[] = [
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
/** What the NS gets of a downlink (TTS encryptDownlinks): no decoded payload. */
const ENCRYPTED_FIELDS = DOWNLINK_FIELDS.filter((f) => f !== 'decoded_payload' && f !== 'decoded_payload_warnings');

/** A session the downlinks are encrypted for: the device's, or one rebuilt from what the NS said. */
interface Target {
  dev_addr: string;
  session_key_id?: string;
  /** Undefined when the AS skips payload crypto for the device. */
  appSKey?: string;
  last_a_f_cnt_down: number;
  /** Rebuilt from the NS's details with the AppSKey of the JS: to be stored as the device's. */
  rebuilt?: boolean;
}

/** The device's sessions as the operation sees them; `null`: the NS says the device has no such session. */
type Targets = Partial<Record<Which, Target | null>>;

export interface QueueOperationRequest {
  device: AsDevice;
  link: ApplicationLink | undefined;
  /** The downlinks, their FRMPayload in plaintext. */
  items: ApplicationDownlink[];
  operation: NsQueueOperation;
  ctx: RpcContext;
  /** Where a session's application FCnt stands, when the NS said so (the last FCnt of an invalidated queue). */
  lastAFCntDown?: { session_key_id?: string; f_cnt: number };
  /** Sessions (by session key ID) the items are not encrypted for: the session they came from already holds them (TTS SkipSessionKeyIDs). */
  skipSessionKeyIds?: string[];
}

export interface QueueOperationResult {
  /** What the NS queued: every item encrypted for each session (current first), with its FCnt. */
  encrypted: AsNsApplicationDownlink[];
  /** The items as queued in the first session (the current one, else the pending one). */
  first: AsNsApplicationDownlink[];
}

/**
 * One operation on the Network Server's queue of a device (TTS `applicationserver.go`
 * attemptDownlinkQueueOp and buildSessionsFromError): every item is encrypted for the device's
 * current session and, when it has one, its pending session (the device may not have confirmed
 * its join yet), each with its own AppSKey, DevAddr and next application FCnts
 * (`last_a_f_cnt_down` + 1, …), and handed to the NS (Push or Replace). When the NS refuses with
 * DownlinkQueueOperationErrorDetails, the sessions are rebuilt from what it knows (the same
 * session: its FCnt moves to the NS's minimum; another session: its AppSKey fetched from the JS
 * by session key ID; none: dropped) and the items are encrypted again, up to
 * MAX_QUEUE_OPERATION_ATTEMPTS times (not when payload crypto is skipped: the application chose
 * the FCnts). Any other refusal, or an NS that does not answer, is the error, and the AS device
 * is not written.
 *
 * The NS call is made outside the registry's read-modify-write (which may run its function more
 * than once, and must not push twice): the NS orders concurrent operations itself, refusing an
 * FCnt at or below one it already queued. Once the NS took the items, the sessions' FCnts (and
 * rebuilt sessions) are stored; that write may only move a session's FCnt forward, and a failure
 * of it is logged, not the caller's error: the downlinks are queued, and the NS's minimum corrects
 * a stale FCnt at the next operation.
 */
@Injectable()
export class DownlinkQueueOperation {
  private readonly logger = new Logger('DownlinkQueueOperation');

  constructor(
    @Inject(DeviceRegistry) private readonly registry: DeviceRegistry<AsDevice>,
    @Inject(AppSKeys) private readonly keys: AppSKeys,
    @Inject(DownlinkPayloads) private readonly payloads: DownlinkPayloads,
    @Inject(NetworkServerQueue) private readonly ns: NetworkServerQueue,
  ) {}

  async run(req: QueueOperationRequest): Promise<QueueOperationResult> {
    const { device, link, items, operation, ctx } = req;
    let targets = this.targets(req);
    const skip = skipsPayloadCrypto(device, link);
    for (let attempt = 1; ; attempt++) {
      const sessions = WHICH.map((w) => targets[w]).filter((t): t is Target => Boolean(t));
      if (sessions.length === 0) throw ErrNoDeviceSession.with();
      const perSession = sessions.map((target) => this.encrypt(target, items));
      try {
        await this.ns.operate(operation, device.ids, perSession.flat(), ctx);
      } catch (err) {
        const details = isStackError(err) ? err.detailOfType(DOWNLINK_QUEUE_OPERATION_ERROR_DETAILS_TYPE) : undefined;
        if (!details || attempt >= MAX_QUEUE_OPERATION_ATTEMPTS || skip) throw err;
        targets = await this.rebuild(device, targets, details as DownlinkQueueOperationErrorDetails, ctx, req.skipSessionKeyIds);
        continue;
      }
      if (items.length > 0 || sessions.some((t) => t.rebuilt) || WHICH.some((w) => targets[w] === null)) await this.store(device, targets, ctx);
      return { encrypted: perSession.flat(), first: perSession[0] };
    }
  }

  /** The device's sessions with a DevAddr, their AppSKeys opened (or none when crypto is skipped). */
  private targets({ device, link, lastAFCntDown, skipSessionKeyIds }: QueueOperationRequest): Targets {
    const targets: Targets = {};
    for (const which of WHICH) {
      const session = device[which];
      if (!session?.dev_addr || skipSessionKeyIds?.includes(session.keys?.session_key_id ?? '')) continue;
      const told = lastAFCntDown && (lastAFCntDown.session_key_id ?? '') === (session.keys?.session_key_id ?? '');
      const fCnt = told ? lastAFCntDown.f_cnt : (session.last_a_f_cnt_down ?? 0);
      targets[which] = {
        dev_addr: session.dev_addr,
        session_key_id: session.keys?.session_key_id,
        appSKey: this.payloads.appSKey(device, link, session),
        last_a_f_cnt_down: fCnt,
      };
    }
    return targets;
  }

  /** TTS encryptDownlinks for one session: the items with its session key ID and next FCnts, FRMPayload encrypted (the target's FCnt moves on). */
  private encrypt(target: Target, items: ApplicationDownlink[]): AsNsApplicationDownlink[] {
    const session: AsSession = { dev_addr: target.dev_addr };
    return items.map((item) => {
      const fCnt = target.appSKey ? target.last_a_f_cnt_down + 1 : Number(item.f_cnt ?? 0);
      target.last_a_f_cnt_down = fCnt;
      const out = inOrder(item, ENCRYPTED_FIELDS);
      const sessionKeyId = target.appSKey ? target.session_key_id : (item.session_key_id ?? target.session_key_id);
      if (sessionKeyId) out.session_key_id = sessionKeyId;
      else delete out.session_key_id;
      out.f_cnt = fCnt;
      if (target.appSKey) out.frm_payload = this.payloads.crypt(item, session, target.appSKey, fCnt);
      if (!out.frm_payload) delete out.frm_payload;
      return withFPort(inOrder(out, ENCRYPTED_FIELDS));
    });
  }

  /** TTS buildSessionsFromError: the sessions as the NS described them. */
  private async rebuild(
    device: AsDevice,
    targets: Targets,
    details: DownlinkQueueOperationErrorDetails,
    ctx: RpcContext,
    skip: string[] = [],
  ): Promise<Targets> {
    const rebuilt = async (mine: Target | null | undefined, devAddr?: string, sessionKeyId?: string, minFCnt?: number): Promise<Target | null | undefined> => {
      if (!devAddr) return null;
      if (skip.includes(sessionKeyId ?? '')) return undefined;
      const last = minFCnt ? minFCnt - 1 : 0;
      if (mine && (mine.session_key_id ?? '') === (sessionKeyId ?? '') && mine.dev_addr === devAddr) return { ...mine, last_a_f_cnt_down: last };
      if (!sessionKeyId) throw ErrRebuild.with();
      const appSKey = await this.keys.appSKey(undefined, { session_key_id: sessionKeyId, dev_eui: device.ids.dev_eui, join_eui: device.ids.join_eui }, ctx);
      return { dev_addr: devAddr, session_key_id: sessionKeyId, appSKey, last_a_f_cnt_down: last, rebuilt: true };
    };
    return {
      session: await rebuilt(targets.session, details.dev_addr, details.session_key_id, details.min_f_cnt_down),
      pending_session: await rebuilt(targets.pending_session, details.pending_dev_addr, details.pending_session_key_id, details.pending_min_f_cnt_down),
    };
  }

  /** The sessions' FCnts moved forward, rebuilt sessions stored, sessions the NS does not have removed (unless the device moved on meanwhile). */
  private async store(read: AsDevice, targets: Targets, ctx: RpcContext): Promise<void> {
    const ids = read.ids;
    try {
      await this.registry.modify({ application_id: ids.application_ids.application_id, device_id: ids.device_id }, (stored) => {
        const device = stored;
        for (const which of WHICH) {
          const target = targets[which];
          const current = device[which];
          const unchanged = (current?.keys?.session_key_id ?? '') === (read[which]?.keys?.session_key_id ?? '') && current?.dev_addr === read[which]?.dev_addr;
          if (target === undefined || !unchanged) continue;
          if (target === null) {
            delete device[which];
            if (which === 'session') delete device.ids.dev_addr;
          } else if (target.rebuilt) {
            device[which] = {
              dev_addr: target.dev_addr,
              keys: { session_key_id: target.session_key_id, app_s_key: { key: target.appSKey } },
              last_a_f_cnt_down: target.last_a_f_cnt_down,
            };
            if (which === 'session') device.ids = { ...device.ids, dev_addr: target.dev_addr };
          } else if (current) {
            current.last_a_f_cnt_down = Math.max(current.last_a_f_cnt_down ?? 0, target.last_a_f_cnt_down);
          }
        }
        return { device, result: undefined };
      });
    } catch (err) {
      this.logger.warn(
        {
          device_uid: `${ids.application_ids.application_id}.${ids.device_id}`,
          correlation_ids: ctx.correlation_ids,
          error: isStackError(err) ? err.fullMessage : 'internal',
        },
        'downlinks queued at the Network Server; their FCnts not stored',
      );
    }
  }
}

/** The fields of `item` in the order of `fields` (those set). */
export function inOrder<T extends object>(item: T, fields: readonly (keyof T)[]): Partial<T> {
  const out: Partial<T> = {};
  for (const key of fields) if (item[key] !== undefined) out[key] = item[key];
  return out;
}

/**
 * A downlink for the NS, whose queue takes only downlinks with an FPort: every item the AS queues
 * has one (DownlinkQueue checks it; the NS's reports return downlinks it took with theirs).
 */
function withFPort(downlink: ApplicationDownlink): AsNsApplicationDownlink {
  if (downlink.f_port === undefined) throw ErrNoFPort.with();
  return { ...downlink, f_port: downlink.f_port };
}
