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
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    handler.flushPending();
  };
  handler.sendCommand = (cmd, ...payloads) => {
    handler.outbound.fill(typeof cmd === 'string' ? Buffer.from(cmd) : cmd, ...payloads);
    if (handler.outbound.size() >= handler.pendingLimit) handler.flushPending();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return true;
}

/** A NATS connection of the stack: nats.js's `connect`, its writes coalesced per turn of the event loop (`coalesceWrites`). */
export async function connectNats(options: ConnectionOptions): Promise<NatsConnection> {
  const nc = await connect(options);
  coalesceWrites(nc);
  return nc;
}
