import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request the receiver got, its body parsed as JSON when it is JSON. */
export interface ReceivedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON of any shape
  json: any;
  /** When the request's body was complete (ms since epoch). */
  at: number;
}

/**
 * What the receiver answers a request: a status (default 200), after `delayMs`; `hold` keeps the
 * request open until `release()` (or the receiver closes).
 */
export interface ReceiverAnswer {
  status?: number;
  delayMs?: number;
  hold?: boolean;
  headers?: Record<string, string>;
  body?: string;
}

export type ReceiverBehaviour = (req: ReceivedRequest, index: number) => ReceiverAnswer | undefined;

/**
 * A real HTTP server on a loopback port that records every request: the webhook endpoint of the
 * webhook e2e tests and benchmarks. The behaviour decides each answer (status, delay, hold);
 * `stop()` closes the port (connection refused) and `start()` opens the same port again.
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private held: Array<() => void> = [];
  private waiters: Array<() => void> = [];
  private port = 0;
  /** Called with each request as it completes (before it is answered). */
  onRequest?: (req: ReceivedRequest) => void;

  constructor(public behaviour: ReceiverBehaviour = () => undefined) {}

  /** Base URL `http://127.0.0.1:<port>` (after `start()`). */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Opens the port (the same one again after `stop()`). */
  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req.method ?? '', req.url ?? '', req.headers, Buffer.concat(chunks).toString('utf8'), res));
    });
    server.keepAliveTimeout = 60_000;
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((res, rej) => {
      server.once('error', rej);
      server.listen(this.port, '127.0.0.1', () => res());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Closes the port and every open connection (held requests are dropped without an answer). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.held = [];
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((res) => server.close(() => res()));
  }

  /** Answers every held request. */
  release(): void {
    const held = this.held;
    this.held = [];
    for (const answer of held) answer();
  }

  /** Requests to paths starting with `prefix`. */
  to(prefix: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.url.startsWith(prefix));
  }

  /** Resolves when `predicate` holds (checked on every request), rejects after `timeoutMs`. */
  async waitFor(predicate: () => boolean, timeoutMs: number, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `webhook receiver: ${what} not met after ${timeoutMs} ms (${this.requests.length} requests: ${this.requests
            .map((r) => r.url)
            .slice(-20)
            .join(', ')})`,
        );
      await new Promise<void>((res) => {
        const timer = setTimeout(res, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          res();
        });
      });
    }
  }

  private handle(method: string, url: string, headers: IncomingHttpHeaders, text: string, res: ServerResponse): void {
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const req: ReceivedRequest = { method, url, headers, text, json, at: Date.now() };
    const index = this.requests.push(req) - 1;
    this.onRequest?.(req);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
    const answer = this.behaviour(req, index) ?? {};
    const respond = () => {
      if (res.destroyed) return;
      res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body ?? '');
    };
    if (answer.hold) this.held.push(respond);
    else if (answer.delayMs) setTimeout(respond, answer.delayMs);
    else respond();
  }
}
