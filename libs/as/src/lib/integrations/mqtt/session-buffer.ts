/** A QoS 1 message of a session, with the packet identifier it is (re)sent with until its PUBACK. */
export interface BufferedMessage {
  packetId: number;
  topic: string;
  payload: Buffer;
  /** When it was buffered (ms since the epoch). */
  at: number;
  /** Sent at least once: a redelivery carries DUP. */
  sent: boolean;
}

export interface SessionBufferOptions {
  /** Messages kept at most; beyond, the oldest go. */
  maxMessages: number;
  /** A message older than this (ms) is not delivered any more. */
  maxAgeMs: number;
}

/** Packet identifiers are 16-bit, never 0 (MQTT 3.1.1 §2.3.1). */
const MAX_PACKET_ID = 0xffff;

/**
 * The QoS 1 messages of one MQTT session that its client has not acknowledged yet, oldest first:
 * those sent and waiting for their PUBACK and those that arrived while the client was away. Each
 * gets its packet identifier when it is buffered and keeps it until its PUBACK, so a reconnecting
 * client gets the same identifiers again with DUP set (at-least-once, MQTT 3.1.1 §4.4). Bounded by
 * count and age; what goes over either is dropped, oldest first, and counted by the caller.
 */
export class SessionBuffer {
  /** By packet identifier, in the order they were buffered. */
  private readonly messages = new Map<number, BufferedMessage>();
  private lastId = 0;

  constructor(private readonly options: SessionBufferOptions) {}

  get size(): number {
    return this.messages.size;
  }

  /** Buffers a message; answers it and how many older ones it pushed out (over `maxMessages`). */
  add(topic: string, payload: Buffer, now: number): { message: BufferedMessage; dropped: number } {
    let dropped = 0;
    while (this.messages.size >= this.options.maxMessages) {
      this.messages.delete(this.messages.keys().next().value as number);
      dropped++;
    }
    const message: BufferedMessage = { packetId: this.nextId(), topic, payload, at: now, sent: false };
    this.messages.set(message.packetId, message);
    return { message, dropped };
  }

  /** Every message to (re)send, oldest first, once those older than `maxAgeMs` are dropped (their number: `expired`). */
  pending(now: number): { messages: BufferedMessage[]; expired: number } {
    const expired = this.expire(now);
    return { messages: [...this.messages.values()], expired };
  }

  /** Drops the messages older than `maxAgeMs`; answers how many. */
  expire(now: number): number {
    let expired = 0;
    for (const [id, message] of this.messages) {
      if (now - message.at <= this.options.maxAgeMs) break;
      this.messages.delete(id);
      expired++;
    }
    return expired;
  }

  /** The client's PUBACK: false when no message has that identifier (acknowledged already, or dropped). */
  ack(packetId: number): boolean {
    return this.messages.delete(packetId);
  }

  clear(): void {
    this.messages.clear();
  }

  /** The next identifier no buffered message holds (the buffer holds far fewer than 65535). */
  private nextId(): number {
    do {
      this.lastId = this.lastId >= MAX_PACKET_ID ? 1 : this.lastId + 1;
    } while (this.messages.has(this.lastId));
    return this.lastId;
  }
}
