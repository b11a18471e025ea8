/**
 * A client of `POST /api/v3/events` for the e2e suites (wire contract §7.2): opens a stream, reads
 * it the way TTS clients do (split on `\n`, `JSON.parse` each non-empty line, take `.result`; the
 * SDK's `\n\n` splitter for `Accept: text/event-stream`), and waits for events with a timeout.
 */
import http from 'node:http';
import type { EventJson } from '@lorawan/api';
import type { ErrorDetailsJson } from './http-client';

/** `{"error": …}` of a stream: a `google.rpc.Status`. */
export interface StreamError {
  code: number;
  message: string;
  details?: ErrorDetailsJson[];
}

export type StreamChunk = { result: EventJson } | { error: StreamError };

export interface OpenOptions {
  /** `Authorization` header value; none when undefined. */
  authorization?: string;
  accept?: string;
  /** Sent as the `X-Request-Id` header. */
  requestId?: string;
  /** JSON-encoded unless a string. */
  body: unknown;
}

/**
 * The TTS SDK style reader: `buffer.split('\n')`, every complete non-empty line `JSON.parse`d.
 * Keep-alive spaces precede the next message on its line (JSON whitespace).
 */
export function parseLines(text: string): { chunks: StreamChunk[]; rest: string } {
  const lines = text.split('\n');
  const rest = lines.pop() ?? '';
  return { chunks: lines.filter((line) => line !== '').map((line) => JSON.parse(line) as StreamChunk), rest };
}

/** The JS SDK's `subscribeToHttpStream` reader: split on `\n\n`, the last piece is an incomplete rest. */
export function parseSdk(text: string): StreamChunk[] {
  return text
    .split('\n\n')
    .slice(0, -1)
    .map((part) => JSON.parse(part) as StreamChunk);
}

export class EventStream {
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  /** Everything received, as is. */
  text = '';
  /** Parsed chunks, in order. */
  readonly chunks: StreamChunk[] = [];
  /** Set when the response ended (by the server) or failed. */
  ended = false;
  private rest = '';
  private cursor = 0;
  private parseError?: Error;
  private waiters: Array<() => void> = [];
  private req?: http.ClientRequest;
  private res?: http.IncomingMessage;
  private endedPromise: Promise<void>;
  private resolveEnded: () => void = () => undefined;

  private constructor() {
    this.endedPromise = new Promise((r) => (this.resolveEnded = r));
  }

  /**
   * Opens a stream; resolves once the status is known. A non-200 answer is read to its end (the
   * whole body is the error), a 200 one keeps streaming into `chunks`.
   */
  static open(baseUrl: string, options: OpenOptions): Promise<EventStream> {
    const stream = new EventStream();
    const payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
    if (options.authorization !== undefined) headers.authorization = options.authorization;
    if (options.accept !== undefined) headers.accept = options.accept;
    if (options.requestId !== undefined) headers['x-request-id'] = options.requestId;
    return new Promise((resolve, reject) => {
      // No agent: one connection per stream, closed with it.
      const req = http.request(new URL('/api/v3/events', baseUrl), { method: 'POST', headers, agent: false }, (res) => {
        stream.res = res;
        stream.status = res.statusCode ?? 0;
        stream.headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => stream.receive(chunk));
        const done = () => stream.finish();
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
        if (stream.status === 200) resolve(stream);
        else void stream.endedPromise.then(() => resolve(stream));
      });
      stream.req = req;
      req.on('error', (err) => {
        if (stream.status === 0) reject(err);
        stream.finish();
      });
      req.end(payload);
    });
  }

  /** The parsed body of a non-200 answer (`{"error":…}`). */
  get json(): { error?: StreamError } | undefined {
    try {
      return JSON.parse(this.text) as { error?: StreamError };
    } catch {
      return undefined;
    }
  }

  /** The events received so far. */
  get events(): EventJson[] {
    return this.chunks.flatMap((c) => ('result' in c ? [c.result] : []));
  }

  /**
   * The next chunk after the ones already taken; rejects after `timeoutMs` (naming what came) or
   * when the stream ended without one.
   */
  async next(timeoutMs = 10_000): Promise<StreamChunk> {
    const deadline = Date.now() + timeoutMs;
    while (this.cursor >= this.chunks.length) {
      if (this.parseError) throw this.parseError;
      if (this.ended) throw new Error(`the stream ended after ${this.chunks.length} messages: ${this.text.slice(-2000)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no message within ${timeoutMs} ms (after ${this.chunks.length}: ${this.describe()})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.chunks[this.cursor++];
  }

  /** The next event; an error chunk fails. */
  async nextEvent(timeoutMs = 10_000): Promise<EventJson> {
    const chunk = await this.next(timeoutMs);
    if ('error' in chunk) throw new Error(`expected an event, got the error ${JSON.stringify(chunk.error)}`);
    return chunk.result;
  }

  /** The next `count` events. */
  async nextEvents(count: number, timeoutMs = 10_000): Promise<EventJson[]> {
    const out: EventJson[] = [];
    for (let i = 0; i < count; i++) out.push(await this.nextEvent(timeoutMs));
    return out;
  }

  /** Nothing arrives for `ms` (the stream stays open and quiet). */
  async expectQuiet(ms: number): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
    if (this.cursor < this.chunks.length) throw new Error(`expected no message, got ${JSON.stringify(this.chunks.slice(this.cursor)).slice(0, 2000)}`);
  }

  /** Resolves when the server ended the response. */
  whenEnded(timeoutMs = 10_000): Promise<void> {
    return Promise.race([
      this.endedPromise,
      new Promise<void>((_, reject) => setTimeout(() => reject(new Error(`the stream did not end within ${timeoutMs} ms`)), timeoutMs).unref()),
    ]);
  }

  /** The client goes away (aborts the request and its connection). */
  close(): void {
    this.req?.destroy();
    this.res?.destroy();
    this.finish();
  }

  describe(): string {
    return this.chunks.map((c) => ('result' in c ? c.result.name : `error ${c.error.message}`)).join(', ') || 'nothing';
  }

  private receive(chunk: string): void {
    this.text += chunk;
    if (this.status !== 200) return; // an error answer is read whole (`json`)
    try {
      const { chunks, rest } = parseLines(this.rest + chunk);
      this.rest = rest;
      this.chunks.push(...chunks);
      if (chunks.length > 0) this.wake();
    } catch (err) {
      this.parseError = new Error(`a line of the stream is not JSON (${(err as Error).message}): ${JSON.stringify(this.text.slice(-2000))}`);
      this.close();
    }
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.resolveEnded();
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
