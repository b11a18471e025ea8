/**
 * A bare TCP connection to the HTTP edge for the e2e suites that need what no HTTP client does:
 * a request written byte by byte, a connection that sends nothing, a chosen loopback source
 * address. Keeps what it received and when the server closed it.
 */
import { connect, type Socket } from 'node:net';

export class RawConnection {
  /** Everything received, as text. */
  received = '';
  /** When the connection closed (`Date.now()`), whoever closed it. */
  closedAt?: number;
  /** The error the socket ended with (ECONNRESET, EPIPE…), if any. */
  error?: string;
  readonly openedAt = Date.now();
  private readonly waiters: Array<() => void> = [];

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.received += chunk;
      this.wake();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (this.error = err.code ?? err.message));
    socket.on('close', () => {
      this.closedAt = Date.now();
      this.wake();
    });
  }

  /** Connects to `port` on 127.0.0.1 from `localAddress` (another loopback address counts as another client). */
  static open(port: number, localAddress = '127.0.0.1'): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, localAddress });
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.closedAt !== undefined;
  }

  write(text: string): void {
    if (!this.socket.destroyed && this.socket.writable) this.socket.write(text);
  }

  close(): void {
    this.socket.destroy();
  }

  /** Resolves true once `check` holds, false when `timeoutMs` passed first. */
  async until(check: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }

  /** Waits for the close; false when the connection is still open after `timeoutMs`. */
  waitClosed(timeoutMs: number): Promise<boolean> {
    return this.until(() => this.closed, timeoutMs);
  }

  /** Waits for one complete response head (`HTTP/1.1 <status>`); its status, or undefined after `timeoutMs`. */
  async response(timeoutMs = 5000): Promise<number | undefined> {
    await this.until(() => /^HTTP\/1\.1 \d{3}[^\r]*\r\n[\s\S]*?\r\n\r\n/.test(this.received) || this.closed, timeoutMs);
    const m = /^HTTP\/1\.1 (\d{3})/.exec(this.received);
    return m ? Number(m[1]) : undefined;
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
