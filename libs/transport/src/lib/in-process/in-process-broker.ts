import type { PubSub, Subscription } from '../pubsub';
import { DEFAULT_MAX_PAYLOAD, RpcTransportError } from '../rpc/rpc-packet';

/** Serves one request: `reply` sends the answer (once). */
export type InProcessHandler = (payload: Uint8Array, reply: (bytes: Uint8Array) => void) => void;

interface Group {
  handlers: InProcessHandler[];
  next: number;
}

type Listener = (payload: Uint8Array, subject: string) => void;

/**
 * Embedded mode's broker: what NATS does for the distributed stack, in memory. Request/reply with
 * queue groups (round robin within a group, "no responders" when nobody serves a subject, a
 * timeout, the same payload bound) for the @nestjs/microservices strategy and client, and
 * publish/subscribe with NATS-style wildcards. Payloads are bytes, so every message goes through
 * JSON exactly as over NATS.
 */
export class InProcessBroker implements PubSub {
  readonly kind = 'in-process' as const;
  readonly maxPayload = DEFAULT_MAX_PAYLOAD;
  private readonly subjects = new Map<string, Map<string, Group>>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly wildcards = new Set<{ pattern: string[]; handler: Listener }>();
  private closed = false;

  /** Sends a request; rejects with RpcTransportError (`unavailable`, `timeout`, `too_large`). */
  request(subject: string, payload: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    if (this.closed) return Promise.reject(new RpcTransportError('unavailable', 'the in-process broker is closed'));
    if (payload.byteLength > this.maxPayload)
      return Promise.reject(new RpcTransportError('too_large', `request of ${payload.byteLength} bytes exceeds ${this.maxPayload}`));
    const group = this.subjects.get(subject)?.values().next().value as Group | undefined;
    if (!group || group.handlers.length === 0) return Promise.reject(new RpcTransportError('unavailable', `no responders for ${subject}`));
    const handler = group.handlers[group.next++ % group.handlers.length];
    return new Promise<Uint8Array>((resolve, reject) => {
      const timer = setTimeout(() => reject(new RpcTransportError('timeout', `request to ${subject} timed out`)), timeoutMs);
      // On a later tick, as a broker would: the caller never runs the server's code synchronously.
      queueMicrotask(() =>
        handler(payload, (bytes) => {
          clearTimeout(timer);
          resolve(bytes);
        }),
      );
    });
  }

  /** Serves a subject within a queue group: each request goes to one member of the group. */
  serve(subject: string, queue: string, handler: InProcessHandler): Subscription {
    let groups = this.subjects.get(subject);
    if (!groups) this.subjects.set(subject, (groups = new Map()));
    let group = groups.get(queue);
    if (!group) groups.set(queue, (group = { handlers: [], next: 0 }));
    group.handlers.push(handler);
    const g = group;
    return {
      unsubscribe: () => {
        const i = g.handlers.indexOf(handler);
        if (i >= 0) g.handlers.splice(i, 1);
      },
    };
  }

  publish(subject: string, payload: Uint8Array): void {
    if (this.closed) return;
    // Delivered on a later tick, as a broker would: a publisher never runs its subscribers' code.
    for (const listener of this.listeners.get(subject) ?? []) queueMicrotask(() => listener(payload, subject));
    for (const { pattern, handler } of this.wildcards) if (matchesSubject(pattern, subject)) queueMicrotask(() => handler(payload, subject));
  }

  /** `*` matches one token and a final `>` one or more, as in NATS. */
  subscribe(subject: string, handler: Listener): Subscription {
    if (subject.split('.').some((t) => t === '*' || t === '>')) {
      const entry = { pattern: subject.split('.'), handler };
      this.wildcards.add(entry);
      return { unsubscribe: () => this.wildcards.delete(entry) };
    }
    let set = this.listeners.get(subject);
    if (!set) this.listeners.set(subject, (set = new Set()));
    set.add(handler);
    const s = set;
    return { unsubscribe: () => s.delete(handler) };
  }

  async healthy(): Promise<boolean> {
    return !this.closed;
  }

  close(): void {
    this.closed = true;
    this.subjects.clear();
    this.listeners.clear();
    this.wildcards.clear();
  }
}

function matchesSubject(pattern: readonly string[], subject: string): boolean {
  const tokens = subject.split('.');
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '>') return tokens.length > i;
    if (i >= tokens.length || (pattern[i] !== '*' && pattern[i] !== tokens[i])) return false;
  }
  return tokens.length === pattern.length;
}
