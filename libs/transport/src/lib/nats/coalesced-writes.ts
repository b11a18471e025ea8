import { connect, type ConnectionOptions, type NatsConnection } from 'nats';

/** The part of nats.js's protocol handler (`ProtocolHandler`, nats 2.x) this adapter replaces one method of. */
interface ProtocolHandler {
  outbound: { fill(data: Uint8Array, ...payloads: Uint8Array[]): void; size(): number };
  pendingLimit: number;
  flushPending(): void;
  sendCommand(cmd: string | Uint8Array, ...payloads: Uint8Array[]): void;
}

/**
 * Makes a NATS connection write what it was given during one turn of the event loop in one socket
 * write, at the end of the turn (`setImmediate`), instead of once per microtask checkpoint (about
 * once per `await`, nats.js's own schedule). Under load a component handles many requests per turn:
 * their publishes, requests and replies then share a write, and the NATS server a read — the Go
 * client's flusher does the same. Order is kept (one buffer); a buffer past the client's pending
 * limit is written at once, as before; `flush()` still writes everything queued before its PING.
 *
 * It replaces `sendCommand` of nats.js's internal protocol handler. Should a nats.js release change
 * that shape, the connection is left as it is and `false` returned (a spec checks the installed
 * release is coalesced).
 */
export function coalesceWrites(nc: NatsConnection): boolean {
  // Boundary: the nats client's protocol handler is internal (not in its typings).
  const protocol = (nc as unknown as { protocol?: Partial<ProtocolHandler> }).protocol;
  if (
    !protocol ||
    typeof protocol.sendCommand !== 'function' ||
    typeof protocol.flushPending !== 'function' ||
    typeof protocol.outbound?.fill !== 'function' ||
    typeof protocol.outbound.size !== 'function' ||
    typeof protocol.pendingLimit !== 'number'
  ) {
    return false;
  }
  const handler = protocol as ProtocolHandler;
  const control: Deferral = { deferring: false };
  deferrals.set(nc, control);
  let scheduled = false;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    scheduled = false;
    clearTimeout(timer);
    timer = undefined;
    handler.flushPending();
  };
  handler.sendCommand = (cmd, ...payloads) => {
    handler.outbound.fill(typeof cmd === 'string' ? Buffer.from(cmd) : cmd, ...payloads);
    if (handler.outbound.size() >= handler.pendingLimit) handler.flushPending();
    else if (control.deferring) {
      // Written with the next write of the connection, or DEFERRED_WRITE_MS from now at the latest.
      if (!scheduled && !timer) timer = setTimeout(flush, DEFERRED_WRITE_MS).unref();
    } else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return true;
}

/**
 * How long a deferrable publish (`publishDeferrable`) may wait for other traffic of its connection
 * to share a socket write with. A component publishes several events per message it handles, most
 * of them in turns of the event loop that write nothing else (a gateway's datagram, the answer to
 * an RPC): each was a socket write of its own, and a read of the NATS server's. Events now wait
 * this long in the component's EventPublisher instead, to go out as one message of several events.
 */
export const DEFERRED_WRITE_MS = 5;

interface Deferral {
  /** Whether the command being sent may wait (set around a deferrable publish). */
  deferring: boolean;
}

const deferrals = new WeakMap<NatsConnection, Deferral>();

/**
 * Publishes a message that may wait up to DEFERRED_WRITE_MS for the connection's next socket write
 * (on a coalesced connection; at once otherwise). It takes its place in the connection's buffer at
 * once: the order of everything the connection sends is kept.
 */
export function publishDeferrable(nc: NatsConnection, subject: string, payload: Uint8Array): void {
  const control = deferrals.get(nc);
  if (!control) return nc.publish(subject, payload);
  control.deferring = true;
  try {
    nc.publish(subject, payload);
  } finally {
    control.deferring = false;
  }
}

/** A NATS connection of the stack: nats.js's `connect`, its writes coalesced per turn of the event loop (`coalesceWrites`). */
export async function connectNats(options: ConnectionOptions): Promise<NatsConnection> {
  const nc = await connect(options);
  coalesceWrites(nc);
  return nc;
}
