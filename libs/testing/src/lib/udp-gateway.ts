import { createSocket, type Socket } from 'node:dgram';
import loraPacket from 'lora-packet';
import { type ConcentratorRadio, ConcentratorQueue, type TxAckError } from './concentrator';

/**
 * A Semtech UDP packet forwarder (GWMP v2) for tests and the CLI simulator: pushes `rxpk`s and
 * status, keeps its downlink path open with PULL_DATA, collects PULL_RESPs and answers them with
 * TX_ACK. Written from PROTOCOL.TXT, independently of the GS's parser.
 */
export interface ReceivedDownlink {
  token: number;
  /** What the gateway answered with its TX_ACK, when it acts as a concentrator (`actAsConcentrator`). */
  ack?: TxAckError;
  /** Empty when the PULL_RESP's body is not `{"txpk":{…}}` (then `body` has the text). */
  txpk: Record<string, unknown>;
  at: number;
  body?: string;
}

export interface RxpkOptions {
  /** MHz. */
  freq?: number;
  datr?: string;
  rssi?: number;
  lsnr?: number;
  tmst?: number;
  stat?: number;
  chan?: number;
}

export class SimulatedUdpGateway {
  private socket?: Socket;
  private token = 1;
  private readonly acks = new Map<number, (type: number) => void>();
  readonly downlinks: ReceivedDownlink[] = [];
  private downlinkWaiters: Array<() => void> = [];
  private pullTimer?: NodeJS.Timeout;
  /** Datagrams handed to the socket and not yet sent, and the socket to close once they are. */
  private sending = 0;
  private closing?: Socket;
  /** The concentrator's downlink queue, when the gateway answers its PULL_RESPs itself. */
  private concentrator?: ConcentratorQueue;
  /** The concentrator's counter: µs since a random start. */
  private readonly counterBase = Math.floor(Math.random() * 2 ** 32);
  private readonly counterOrigin = performance.now();

  constructor(
    /** 16 hex digits. */
    readonly eui: string,
    private readonly server: { host: string; port: number },
    private readonly version = 2,
  ) {}

  async open(): Promise<void> {
    const socket = createSocket('udp4');
    this.socket = socket;
    socket.on('message', (msg) => this.onMessage(msg));
    // Loopback for a server on this machine (tests); all interfaces to reach another host (the CLI).
    const loopback = this.server.host === 'localhost' || this.server.host.startsWith('127.');
    await new Promise<void>((resolve) => socket.bind(0, loopback ? '127.0.0.1' : '0.0.0.0', resolve));
  }

  /**
   * From now on the gateway answers every PULL_RESP with a TX_ACK as a real packet forwarder's JIT
   * queue would (`ConcentratorQueue`: `COLLISION_PACKET` for a packet that overlaps one it has
   * accepted, `TOO_LATE`, `TOO_EARLY`; `TX_FREQ` outside the `radio`'s TX range), on its own
   * microsecond counter (`concentratorTime`, the `tmst` of `rxpkNow`). Each downlink records its
   * answer (`ack`).
   */
  actAsConcentrator(radio: ConcentratorRadio = {}): this {
    this.concentrator = new ConcentratorQueue(radio);
    return this;
  }

  /** The concentrator's counter now (µs, 32 bits), as a forwarder stamps `tmst`. */
  concentratorTime(): number {
    return (this.counterBase + Math.floor((performance.now() - this.counterOrigin) * 1000)) >>> 0;
  }

  /** The transmissions the concentrator accepted (`actAsConcentrator`). */
  get accepted(): ReadonlyArray<{ count_us: number; airtime_us: number; txpk: Record<string, unknown> }> {
    return this.concentrator?.queued ?? [];
  }

  /** One frame as an rxpk received now, stamped with the concentrator's counter. */
  rxpkNow(frame: Buffer, o: Omit<RxpkOptions, 'tmst'> = {}): Record<string, unknown> {
    return SimulatedUdpGateway.rxpk(frame, { ...o, tmst: this.concentratorTime() });
  }

  /** Stops the keep-alive; the socket closes once the datagrams handed to it are sent (a TX_ACK just before). */
  close(): void {
    clearInterval(this.pullTimer);
    const socket = this.socket;
    this.socket = undefined;
    if (!socket) return;
    // Closing a dgram socket drops the sends it has not done yet.
    if (this.sending === 0) socket.close();
    else this.closing = socket;
  }

  /** Sends raw bytes (malformed datagrams in tests); `onError` hears of a failed send (unknown host, no route). */
  sendRaw(bytes: Buffer, onError?: (err: Error) => void): void {
    const socket = this.socket;
    if (!socket) return;
    this.sending++;
    socket.send(bytes, this.server.port, this.server.host, (err) => {
      this.sending--;
      if (err) onError?.(err);
      if (this.sending === 0 && this.closing === socket) {
        this.closing = undefined;
        socket.close();
      }
    });
  }

  /** PUSH_DATA with frames (each an rxpk) and/or a status; resolves with the PUSH_ACK's identifier (0x01), rejects after `timeoutMs`. */
  push(body: { rxpk?: Array<Record<string, unknown>>; stat?: Record<string, unknown> }, timeoutMs = 2000): Promise<number> {
    return this.request(0x00, Buffer.from(JSON.stringify(body)), timeoutMs);
  }

  /** One frame as an rxpk: `data` base64, frequency in MHz, a LoRa data rate. */
  static rxpk(frame: Buffer, o: RxpkOptions = {}): Record<string, unknown> {
    return {
      tmst: o.tmst ?? 1_000_000,
      chan: o.chan ?? 0,
      rfch: 0,
      freq: o.freq ?? 868.1,
      stat: o.stat ?? 1,
      modu: 'LORA',
      datr: o.datr ?? 'SF7BW125',
      codr: '4/5',
      rssi: o.rssi ?? -50,
      lsnr: o.lsnr ?? 9.5,
      size: frame.length,
      data: frame.toString('base64'),
    };
  }

  /** PULL_DATA; resolves on PULL_ACK. */
  pull(timeoutMs = 2000): Promise<number> {
    return this.request(0x02, Buffer.alloc(0), timeoutMs);
  }

  /** PULL_DATA every `intervalMs` (a forwarder's keep-alive). */
  keepAlive(intervalMs: number): void {
    clearInterval(this.pullTimer);
    this.pullTimer = setInterval(() => void this.pull().catch(() => undefined), intervalMs);
  }

  /** TX_ACK for a PULL_RESP token: success without a body, else `{txpk_ack:{error}}`. */
  txAck(token: number, error?: string): void {
    const body = error ? Buffer.from(JSON.stringify({ txpk_ack: { error } })) : Buffer.alloc(0);
    this.sendRaw(Buffer.concat([this.header(token, 0x05), body]));
  }

  /** Resolves once `count` PULL_RESPs have arrived in all. */
  async waitForDownlinks(count: number, timeoutMs = 2000): Promise<ReceivedDownlink[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.downlinks.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.downlinks.length} of ${count} downlinks after ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.downlinkWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.downlinks.slice(0, count);
  }

  private header(token: number, type: number): Buffer {
    return Buffer.concat([Buffer.from([this.version, token >> 8, token & 0xff, type]), Buffer.from(this.eui, 'hex')]);
  }

  private request(type: number, body: Buffer, timeoutMs: number): Promise<number> {
    const token = (this.token = (this.token % 0xffff) + 1);
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.acks.delete(token);
        reject(new Error(`no ack for token ${token} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.acks.set(token, (ackType) => {
        clearTimeout(timer);
        resolve(ackType);
      });
      this.sendRaw(Buffer.concat([this.header(token, type), body]), (err) => {
        clearTimeout(timer);
        this.acks.delete(token);
        reject(new Error(`cannot send to ${this.server.host}:${this.server.port}: ${err.message}`));
      });
    });
  }

  private onMessage(msg: Buffer): void {
    if (msg.length < 4) return;
    const token = msg.readUInt16BE(1);
    const type = msg[3];
    if (type === 0x01 || type === 0x04) {
      this.acks.get(token)?.(type);
      this.acks.delete(token);
    } else if (type === 0x03) {
      const downlink: ReceivedDownlink = { token, ...parseTxpk(msg.subarray(4).toString()), at: Date.now() };
      if (this.concentrator) {
        const ack = this.concentrator.enqueue(downlink.txpk, this.concentratorTime());
        downlink.ack = ack;
        this.txAck(token, ack === 'NONE' ? undefined : ack);
      }
      this.downlinks.push(downlink);
      for (const w of this.downlinkWaiters.splice(0)) w();
    }
  }
}

function parseTxpk(body: string): { txpk: Record<string, unknown>; body?: string } {
  try {
    const { txpk } = JSON.parse(body) as { txpk?: unknown };
    if (typeof txpk === 'object' && txpk !== null && !Array.isArray(txpk)) return { txpk: txpk as Record<string, unknown> };
  } catch {
    // Not JSON: reported below like any other body without a txpk.
  }
  return { txpk: {}, body };
}

/** A join-request as a device sends it, built by lora-packet (never by the stack's own code); DevNonce `0102`. */
export function loraJoinRequest(o: { joinEui?: string; devEui?: string; devNonce?: string; appKey?: Buffer } = {}): Buffer {
  return loraPacket
    .fromFields(
      {
        MType: 'Join Request',
        AppEUI: Buffer.from(o.joinEui ?? '70B3D57ED0000001', 'hex'),
        DevEUI: Buffer.from(o.devEui ?? '0004A30B001C0530', 'hex'),
        DevNonce: Buffer.from(o.devNonce ?? '0102', 'hex'),
      },
      undefined,
      undefined,
      o.appKey ?? Buffer.alloc(16, 7),
    )
    .getPHYPayload() as Buffer;
}

/** Polls `check` every few milliseconds until it holds; fails after `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
