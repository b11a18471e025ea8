import type { DataSource } from 'typeorm';
import {
  type ApplicationUpJson,
  DOWNLINK_QUEUE_OPERATION_ERROR_DETAILS_TYPE,
  type EventDefinition,
  type RpcContext,
  RPCS,
  type JsonObject,
} from '@lorawan/api';
import { type EventPublisher, RpcInvoker } from '@lorawan/component';
import { type FormatterConfig, loadConfig, type StackConfig } from '@lorawan/config';
import { type ErrorDetails, StackError } from '@lorawan/errors';
import { copySourceFor, DeviceRegistry, keySealerFor, TypeOrmDeviceStore } from '@lorawan/registry';
import { type RpcClient, RpcTransportError } from '@lorawan/transport';
import { DownlinkPayloads } from '../downlinks/downlink-payloads.service';
import { DownlinkQueue } from '../downlinks/downlink-queue.service';
import { DownlinkReports } from '../downlinks/downlink-reports.service';
import { NetworkServerQueue } from '../downlinks/network-server-queue';
import { DownlinkQueueOperation } from '../downlinks/queue-operation.service';
import type { AsDevice } from '../end-devices/as-device';
import { AS_REGISTRY_POLICY } from '../end-devices/as-registry.policy';
import { FormatterWorkerPool } from '../formatters/formatter-worker-pool.service';
import { PayloadFormatter } from '../formatters/payload-formatter.service';
import type { ApplicationUpSink } from '../integrations/application-integration';
import { AppSKeys } from '../end-devices/app-s-keys.service';
import type { ApplicationLinkRegistry } from '../links/application-link.service';

/**
 * What the AS integration specs share: the error a call rejects with, a recording event publisher
 * and integration sink, the AS device registry on a test data source, and the Network Server's
 * downlink queue as a double. Imported by specs only; no jest globals here, so it type-checks
 * with the library.
 */

/** The StackError the promise rejects with (or the call throws); throws if it succeeds. */
/** A request of the bootstrap admin key (universal rights), as the gateway hands it to a component. */
export function adminContext(requestId: string): RpcContext {
  return {
    request_id: requestId,
    correlation_ids: [],
    caller: { kind: 'admin-key', id: 'admin', is_admin: true, key_rights: [], universal: true, rights: [] },
  };
}

export async function errorOf(call: Promise<unknown> | (() => unknown)): Promise<StackError> {
  try {
    await (typeof call === 'function' ? call() : call);
  } catch (err) {
    return err as StackError;
  }
  throw new Error('expected an error');
}

/** An event as the recording publisher saw it. */
export interface RecordedEvent {
  name: string;
  data: unknown;
  correlation_ids: string[];
  identifiers: unknown;
}

/** An EventPublisher that appends every event (its data cloned at publish time) to `into`. */
export function recordingPublisher(into: RecordedEvent[]): EventPublisher {
  const recorder: Pick<EventPublisher, 'publish'> = {
    publish: (def: EventDefinition, identifiers, options = {}) => {
      into.push({ name: def.name, data: structuredClone(options.data), correlation_ids: options.ctx?.correlation_ids ?? [], identifiers });
    },
  };
  return recorder as EventPublisher;
}

/** An ApplicationUpSink that records a clone of each message in `ups`, or rejects with `failWith` when set. */
export class RecordingSink implements ApplicationUpSink {
  readonly ups: ApplicationUpJson[] = [];
  failWith?: Error;

  async publish(up: ApplicationUpJson): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.ups.push(structuredClone(up));
  }
}

/**
 * The AS device registry on `ds`: the AS policy, no KEKs. `events` is the publisher of the
 * registry's own events (specs pass `unobservedEvents()` from `@lorawan/registry/conformance`,
 * which this file cannot import: that entry point uses jest globals and is not part of the build).
 */
export function asRegistry(ds: DataSource, events: EventPublisher): DeviceRegistry<AsDevice> {
  return new DeviceRegistry<AsDevice>(
    new TypeOrmDeviceStore(ds),
    AS_REGISTRY_POLICY,
    keySealerFor('as', { keks: undefined, kekLabels: {} }),
    events,
    copySourceFor({}),
  );
}

/** How a double answers an RPC: the result, or the component's error. */
export type DoubleReply = { ok: unknown } | { error: ErrorDetails };
/** The AsNs operations. */
export type NsQueueOperationName = 'push' | 'replace' | 'list';

/**
 * The Network Server's queue (`AsNs.DownlinkQueuePush|Replace|List`) as a double: one queue per
 * device ID, push appends and replace replaces, and an FCnt not above the last queued one of its
 * session (or below `minFCnt` of the device) is refused as the NS refuses it (`f_cnt_too_low` with
 * DownlinkQueueOperationErrorDetails naming the device's session as `session` says). `refuseNext`
 * answers the next operations with these errors instead; `requests` is what it was asked.
 * `answer` serves a broker double; `client()` is an RpcClient for services built by hand.
 */
export class NsQueueDouble {
  readonly requests: Array<{ operation: NsQueueOperationName; body: JsonObject }> = [];
  readonly queues = new Map<string, JsonObject[]>();
  readonly minFCnt = new Map<string, number>();
  refuseNext: ErrorDetails[] = [];
  /** The client answers as if no NS served the subjects. */
  unreachable = false;

  constructor(private readonly session: (deviceId: string) => { dev_addr: string; session_key_id: string }) {}

  answer(operation: NsQueueOperationName, body: unknown): DoubleReply {
    const request = body as JsonObject & { end_device_ids?: { device_id: string }; device_id?: string; downlinks?: JsonObject[] };
    this.requests.push({ operation, body: structuredClone(request) });
    const deviceId = request.end_device_ids?.device_id ?? request.device_id ?? '';
    if (operation === 'list') {
      const downlinks = this.queues.get(deviceId) ?? [];
      return { ok: downlinks.length ? { downlinks: structuredClone(downlinks) } : {} };
    }
    const refusal = this.refuseNext.shift();
    if (refusal) return { error: refusal };
    const queue = operation === 'replace' ? [] : [...(this.queues.get(deviceId) ?? [])];
    // Each session's FCnts on their own: above the device's minimum and the session's last queued one.
    const next = new Map<unknown, number>();
    for (const down of queue) next.set(down.session_key_id, Number(down.f_cnt ?? 0) + 1);
    for (const down of request.downlinks ?? []) {
      const fCnt = Number(down.f_cnt ?? 0);
      const min = Math.max(this.minFCnt.get(deviceId) ?? 0, next.get(down.session_key_id) ?? 0);
      if (fCnt < min) return { error: this.fCntTooLow(deviceId, fCnt, min) };
      next.set(down.session_key_id, fCnt + 1);
      queue.push(structuredClone(down));
    }
    this.queues.set(deviceId, queue);
    return { ok: {} };
  }

  /** The NS's refusal of an FCnt below `min` (TTS `f_cnt_too_low` with the details the AS rebuilds from). */
  fCntTooLow(deviceId: string, fCnt: number, min: number): ErrorDetails {
    const { dev_addr, session_key_id } = this.session(deviceId);
    const details = { '@type': DOWNLINK_QUEUE_OPERATION_ERROR_DETAILS_TYPE, dev_addr, session_key_id, min_f_cnt_down: min };
    return StackError.fromDetails({
      namespace: 'pkg/networkserver',
      name: 'f_cnt_too_low',
      message_format: 'FCnt `{f_cnt}` is lower than minimum of `{min_f_cnt}`',
      attributes: { f_cnt: fCnt, min_f_cnt: min },
      correlation_id: 'ns-double',
      code: 3,
      details: [details],
    }).toDetails();
  }

  client(): RpcClient {
    const operations: Record<string, NsQueueOperationName> = {
      [RPCS['AsNs.DownlinkQueuePush'].subject]: 'push',
      [RPCS['AsNs.DownlinkQueueReplace'].subject]: 'replace',
      [RPCS['AsNs.DownlinkQueueList'].subject]: 'list',
    };
    const call = async (subject: string, envelope: { body: unknown }) => {
      const operation = operations[subject];
      if (!operation || this.unreachable) throw new RpcTransportError('unavailable', `no responders for ${subject}`);
      const reply = this.answer(operation, envelope.body);
      if ('error' in reply) throw reply.error;
      return reply.ok;
    };
    // A double of the one method the AS calls; the rest of the client proxy is never used.
    return { call } as unknown as RpcClient;
  }
}

/** A formatter worker pool with the default FORMATTER_* settings, or these; the spec closes it. */
export function testFormatterPool(overrides: Partial<FormatterConfig> = {}): FormatterWorkerPool {
  return new FormatterWorkerPool({ formatters: { ...loadConfig({}).formatters, ...overrides } });
}

/** The AS's downlink services on `registry`, with the NS reached through `rpc` (a NsQueueDouble's client), scripts run by `pool`, and no KEKs. */
export function asDownlinkServices(o: {
  registry: DeviceRegistry<AsDevice>;
  links: ApplicationLinkRegistry;
  events: EventPublisher;
  sink: ApplicationUpSink;
  rpc: RpcClient;
  pool: FormatterWorkerPool;
}) {
  const config = { rpcTimeoutMs: 1000, keks: undefined } as StackConfig;
  const formatter = new PayloadFormatter(o.pool);
  const payloads = new DownlinkPayloads(o.registry, formatter, o.events);
  const rpc = new RpcInvoker(o.rpc);
  const ns = new NetworkServerQueue(rpc, config);
  const operation = new DownlinkQueueOperation(o.registry, new AppSKeys(rpc, config), payloads, ns);
  const reports = new DownlinkReports(o.events, o.sink);
  return { queue: new DownlinkQueue(o.registry, formatter, o.events, o.links, operation, reports, payloads, ns), operation, payloads };
}
