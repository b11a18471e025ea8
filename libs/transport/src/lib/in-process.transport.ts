import { type RequestHandler, type Subscription, type Transport, TransportError } from './transport';

interface Group {
  handlers: RequestHandler[];
  next: number;
}

/** Embedded mode: subjects resolved in memory, round-robin within a queue group, same timeouts. */
export class InProcessTransport implements Transport {
  readonly kind = 'in-process' as const;
  private readonly subjects = new Map<string, Map<string, Group>>();
  private readonly listeners = new Map<string, Set<(payload: Uint8Array, subject: string) => void>>();
  private readonly wildcards = new Set<{ pattern: string[]; handler: (payload: Uint8Array, subject: string) => void }>();
  private closed = false;

  async request(subject: string, payload: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    if (this.closed) throw new TransportError('closed', 'transport is closed');
    const groups = this.subjects.get(subject);
    const group = groups?.values().next().value as Group | undefined;
    if (!group || group.handlers.length === 0) throw new TransportError('no_responders', `no responders for ${subject}`);
    const handler = group.handlers[group.next++ % group.handlers.length];
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TransportError('timeout', `request to ${subject} timed out`)), timeoutMs);
    });
    try {
      return await Promise.race([handler(payload), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  serve(subject: string, queue: string, handler: RequestHandler): Subscription {
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
  subscribe(subject: string, handler: (payload: Uint8Array, subject: string) => void): Subscription {
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

  async close(): Promise<void> {
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
