import { type EventJson, STREAM_PING_MS, type StreamControl, streamControlSubject, type StreamMessage, streamSubject } from '@lorawan/api';
import { Code, ErrUnavailable, httpStatusFromCode, StackError, type StatusBody } from '@lorawan/errors';
import { decode, encode, type PubSub, type Subscription } from '@lorawan/transport';
import { ErrStreamBufferFull } from './gateway-errors';
import { frameError, frameResult, KEEP_ALIVE, type StreamFraming } from './stream-framing';

/** What a session writes to: the raw HTTP response (a subset of `http.ServerResponse`, so tests can stand in). */
export interface StreamSink {
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: string | Uint8Array): boolean;
  end(chunk?: string): unknown;
  destroy(): unknown;
  readonly writableLength: number;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
  on(event: 'error', listener: (err: Error) => void): unknown;
  once(event: 'close', listener: () => void): unknown;
}

export interface StreamLimits {
  /** Write `KEEP_ALIVE` when nothing was written for this long (the start event counts as written). */
  keepAliveMs: number;
  /** Bytes the socket may hold unsent: above this for `slowGraceMs`, the subscriber is too slow. */
  maxBufferedBytes: number;
  /** Above this many unsent bytes the stream ends at once (a burst no client reads that fast). */
  hardMaxBufferedBytes: number;
  /** How long the socket may stay above `maxBufferedBytes` (a history burst drains well within it). */
  slowGraceMs: number;
  /** After ending a stream for slowness, how long the client gets to read the error before the socket is destroyed. */
  closeGraceMs: number;
  /** Streams one credential (API key ID, admin key) may have open at once on this gateway; 0: no limit. */
  maxStreamsPerCredential: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  keepAliveMs: 15_000,
  maxBufferedBytes: 1024 * 1024,
  hardMaxBufferedBytes: 16 * 1024 * 1024,
  slowGraceMs: 5_000,
  closeGraceMs: 5_000,
  maxStreamsPerCredential: 100,
};

export interface SessionOptions {
  id: string;
  sink: StreamSink;
  framing: StreamFraming;
  /** Headers every answer carries (`X-Request-Id`). */
  headers: Record<string, string>;
  pubsub: PubSub;
  limits: StreamLimits;
  /** Called once when the session is over (client gone, ended, refused, shut down). */
  onClosed(session: EventStreamSession): void;
}

type State = 'opening' | 'streaming' | 'closed';

const EVENT_MESSAGE_PREFIX = Buffer.from('{"event":');
const RESULT_PREFIX = Buffer.from('{"result":');
const NEWLINE = 0x0a;
const CLOSING_BRACE = 0x7d;

/**
 * One `POST /api/v3/events` stream on the gateway side of the session protocol (`@lorawan/api`
 * `stream.ts`). Created before `Events.Stream` is sent, it subscribes to the session subject at
 * once, so nothing the events replica publishes after its reply is missed; what arrives before the
 * start reply waits (bounded) and follows the start event. While streaming it pings the replica,
 * writes a keep-alive when idle, and ends the stream when the client reads too slowly. However it
 * ends (client gone, `{error}`/`{end}` from the replica, refusal, slowness, shutdown) it tells the
 * replica `{close}`, unsubscribes and clears its timers, once.
 */
export class EventStreamSession {
  private state: State = 'opening';
  private readonly subscription: Subscription;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private pingTimer?: NodeJS.Timeout;
  private keepAliveTimer?: NodeJS.Timeout;
  private slowTimer?: NodeJS.Timeout;
  private destroyTimer?: NodeJS.Timeout;
  /** When the stream was last written to (`performance.now()`, a monotonic clock). */
  private lastWriteAt = 0;
  private readonly delimiter: Buffer;
  private replicaId?: string;
  private startedAtMs?: number;

  constructor(private readonly o: SessionOptions) {
    this.delimiter = Buffer.from(o.framing.delimiter);
    o.sink.on('error', () => undefined); // a client that went away; 'close' follows
    o.sink.once('close', () => this.close());
    this.subscription = o.pubsub.subscribe(streamSubject(o.id), (payload) => this.receive(payload));
  }

  get id(): string {
    return this.o.id;
  }

  get closed(): boolean {
    return this.state === 'closed';
  }

  /** The events replica serving the stream, as its start reply named it (undefined: an older replica, not watched). */
  get replica(): string | undefined {
    return this.replicaId;
  }

  /** When the stream started (`performance.now()`), or undefined while opening. */
  get startedAt(): number | undefined {
    return this.startedAtMs;
  }

  /** The replica accepted: status 200 with the start event, then what arrived meanwhile, then live. */
  start(event: EventJson, replica?: string): void {
    // The client left while the replica was opening the session: it learns now that it can drop it.
    if (this.state === 'closed') return this.control({ close: true });
    if (this.state !== 'opening') return;
    this.state = 'streaming';
    this.replicaId = replica;
    this.startedAtMs = performance.now();
    this.o.sink.writeHead(200, {
      ...this.o.headers,
      'content-type': this.o.framing.contentType,
      'cache-control': 'no-cache',
      // Proxies (nginx) must pass each message on as it comes.
      'x-accel-buffering': 'no',
    });
    this.write(frameResult(event, this.o.framing));
    const pending = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    for (const payload of pending) this.handle(payload);
    if (this.state !== 'streaming') return;
    this.pingTimer = setInterval(() => this.control({ ping: true }), STREAM_PING_MS);
    this.scheduleKeepAlive(this.o.limits.keepAliveMs);
  }

  /**
   * The stream could not start (credentials, rights, request, no events replica): the error is the
   * whole answer, with its status (`{"error":…}` and the delimiter, as TTS).
   */
  refuse(error: StackError): void {
    if (this.state !== 'opening') return;
    refuseStream(this.o.sink, this.o.framing, this.o.headers, error);
    this.close();
  }

  /** The stream cannot go on (its events replica went silent): an error message in the stream, then the end. */
  fail(error: StackError): void {
    if (this.state === 'streaming') this.endWith(error.toStatus());
  }

  /** The stream may not go on (its credential expired, was revoked or its rights changed): refused if not started, else ended with the error. */
  abort(error: StackError): void {
    if (this.state === 'opening') this.refuse(error);
    else this.fail(error);
  }

  /** Gateway shutdown: a stream not started yet is refused (503), a started one ends. */
  shutdown(): void {
    if (this.state === 'opening') this.refuse(ErrUnavailable.with({ component: 'gateway' }));
    else this.close();
  }

  /** Ends the stream and the session (the client is gone, or the stream is over). */
  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.control({ close: true });
    this.subscription.unsubscribe();
    this.pending = [];
    clearInterval(this.pingTimer);
    clearTimeout(this.keepAliveTimer);
    clearTimeout(this.slowTimer);
    const sink = this.o.sink;
    if (!sink.writableEnded && !sink.destroyed) sink.end();
    this.o.onClosed(this);
  }

  private receive(payload: Uint8Array): void {
    if (this.state === 'streaming') return this.handle(payload);
    if (this.state === 'closed') return;
    this.pending.push(payload);
    this.pendingBytes += payload.byteLength;
    if (this.pendingBytes > this.o.limits.hardMaxBufferedBytes)
      this.refuse(ErrStreamBufferFull.with({ buffered_bytes: this.pendingBytes, max_bytes: this.o.limits.hardMaxBufferedBytes }));
  }

  private handle(payload: Uint8Array): void {
    if (this.state !== 'streaming') return;
    const event = eventFrame(payload, this.delimiter);
    if (event) {
      this.write(event);
      return this.checkBuffer();
    }
    let message: StreamMessage;
    try {
      message = decode<StreamMessage>(payload);
    } catch {
      return;
    }
    if ('event' in message) {
      this.write(frameResult(message.event, this.o.framing));
      this.checkBuffer();
    } else if ('error' in message) {
      this.endWith(StackError.fromDetails(message.error).toStatus());
    } else if ('end' in message) {
      this.close();
    }
  }

  private write(chunk: string | Uint8Array): void {
    const sink = this.o.sink;
    if (sink.writableEnded || sink.destroyed) return;
    sink.write(chunk);
    this.lastWriteAt = performance.now();
  }

  /**
   * One timer per stream, not per write: a write only notes its time, and the timer, when it fires,
   * writes the keep-alive if the stream has been silent for `keepAliveMs` (the start event and
   * every message count), or waits out the rest of the period after the last write. So an idle
   * stream gets a keep-alive `keepAliveMs` after its last write, never up to twice that later.
   */
  private scheduleKeepAlive(delayMs: number): void {
    this.keepAliveTimer = setTimeout(() => this.keepAlive(), delayMs);
  }

  private keepAlive(): void {
    if (this.state !== 'streaming') return;
    const { keepAliveMs } = this.o.limits;
    const silentMs = performance.now() - this.lastWriteAt;
    if (silentMs >= keepAliveMs) this.write(KEEP_ALIVE);
    this.scheduleKeepAlive(silentMs >= keepAliveMs ? keepAliveMs : keepAliveMs - silentMs);
  }

  /** Unsent bytes beyond the hard bound end the stream now; beyond the soft bound, if they stay there. */
  private checkBuffer(): void {
    const { maxBufferedBytes, hardMaxBufferedBytes, slowGraceMs } = this.o.limits;
    const buffered = this.o.sink.writableLength;
    if (buffered > hardMaxBufferedBytes) return this.tooSlow(buffered, hardMaxBufferedBytes);
    if (buffered <= maxBufferedBytes || this.slowTimer) return;
    this.slowTimer = setTimeout(() => {
      this.slowTimer = undefined;
      const still = this.o.sink.writableLength;
      if (still > maxBufferedBytes && this.state === 'streaming') this.tooSlow(still, maxBufferedBytes);
    }, slowGraceMs);
  }

  private tooSlow(buffered: number, max: number): void {
    this.endWith(ErrStreamBufferFull.with({ buffered_bytes: buffered, max_bytes: max }).toStatus());
    // What the socket still holds is freed soon even if the client never reads again.
    const sink = this.o.sink;
    if (!sink.destroyed) {
      this.destroyTimer = setTimeout(() => sink.destroy(), this.o.limits.closeGraceMs);
      sink.once('close', () => clearTimeout(this.destroyTimer));
    }
  }

  /** An error message in the 200 stream, then the end. */
  private endWith(status: StatusBody): void {
    this.write(frameError(status, this.o.framing));
    this.close();
  }

  private control(message: StreamControl): void {
    this.o.pubsub.publish(streamControlSubject(this.o.id), encode(message));
  }
}

/** A stream refused before it started: the error's status, `{"error":…}` and the delimiter (TTS). */
export function refuseStream(sink: StreamSink, framing: StreamFraming, baseHeaders: Record<string, string>, error: StackError): void {
  if (sink.writableEnded || sink.destroyed) return;
  const headers: Record<string, string> = { ...baseHeaders, 'content-type': framing.contentType };
  if (error.code === Code.Unauthenticated) headers['www-authenticate'] = error.fullMessage;
  sink.writeHead(httpStatusFromCode(error.code), headers);
  sink.end(frameError(error.toStatus(), framing));
}

/**
 * The frame of an `{"event":…}` message without decoding it: `{"result":` + the event's bytes as
 * the replica sent them (compact JSON, so one line) + the delimiter. Undefined for anything else.
 */
function eventFrame(payload: Uint8Array, delimiter: Buffer): Buffer | undefined {
  const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (bytes.length <= EVENT_MESSAGE_PREFIX.length || bytes[bytes.length - 1] !== CLOSING_BRACE) return undefined;
  if (!bytes.subarray(0, EVENT_MESSAGE_PREFIX.length).equals(EVENT_MESSAGE_PREFIX) || bytes.includes(NEWLINE)) return undefined;
  return Buffer.concat([RESULT_PREFIX, bytes.subarray(EVENT_MESSAGE_PREFIX.length), delimiter]);
}
