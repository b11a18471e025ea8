import { EVENT_SUBJECTS, type EventJson, newUlid, type RpcContext, rpcCorrelationId, splitEventBatch } from '@lorawan/api';
import { decode, type PubSub } from '@lorawan/transport';

/** An event without what differs on every publication (time, unique ID, origin host). */
export type StableEvent = Omit<EventJson, 'time' | 'unique_id' | 'origin'>;

/** The events published on a transport, as a subscriber of `events.>` receives them (specs only). */
export interface EventRecorder {
  /**
   * The events received since the last call (once deliveries already queued have run), without
   * `time`, `unique_id` and `origin`, which are checked for their form (RFC 3339 UTC with
   * microseconds, ULID, non-empty) so that specs can compare the rest exactly.
   */
  take(): Promise<StableEvent[]>;
  /** Every event received so far, whole (for checks such as "no secret anywhere"). */
  readonly all: readonly EventJson[];
  stop(): void;
}

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function recordEvents(pubsub: PubSub): EventRecorder {
  const all: EventJson[] = [];
  let taken = 0;
  const subscription = pubsub.subscribe(EVENT_SUBJECTS, (payload) => {
    for (const event of splitEventBatch(payload)) all.push(decode<EventJson>(event));
  });
  return {
    all,
    take: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      const fresh = all.slice(taken);
      taken = all.length;
      return fresh.map(({ time, unique_id, origin, ...stable }) => {
        if (!TIME.test(time) || !ULID.test(unique_id) || !origin)
          throw new Error(`malformed event ${stable.name}: time ${time}, unique_id ${unique_id}, origin ${origin}`);
        return stable;
      });
    },
    stop: () => subscription.unsubscribe(),
  };
}

/** A request's context as the gateway builds it: correlation ID `rpc:/ttn.lorawan.v3.<Service>/<Method>:<request id>`. */
export function rpcContext(rpc: `${string}.${string}`, caller?: RpcContext['caller']): RpcContext {
  const requestId = newUlid();
  const [service, method] = rpc.split('.');
  return { request_id: requestId, correlation_ids: [rpcCorrelationId({ service, method }, requestId)], ...(caller ? { caller } : {}) };
}
