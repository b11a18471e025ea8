/**
 * A Semtech concentrator's downlink queue as the packet forwarder keeps it (`jitqueue.c`,
 * PROTOCOL.TXT §6–7), for simulated gateways: it takes a PULL_RESP's `txpk` at its own
 * microsecond counter and answers what a real gateway's TX_ACK would say. It refuses a packet
 * that starts within TX_START_DELAY + TX_JIT_DELAY + TX_MARGIN_DELAY of now (`TOO_LATE`), a class
 * A/B packet more than TX_MAX_ADVANCE_DELAY ahead (`TOO_EARLY`), and one that comes as close to
 * another already queued, counting each one's time on air (`COLLISION_PACKET`); an immediate
 * packet goes at the first free moment a second from now or later. Before queueing, a packet on a
 * frequency outside the radio's TX range (`tx_freq_min`/`tx_freq_max` of its `global_conf.json`,
 * when given) is refused (`TX_FREQ`), as `lora_pkt_fwd.c` does. It enforces nothing else (no
 * duty cycle). The time on air is Semtech's formula (SX1276 datasheet §4.1.1.7, AN1200.13; FSK:
 * preamble, sync word, length, payload, CRC), written here independently of the stack's.
 */

/** µs (jitqueue.c / loragw_hal.h). */
const TX_START_DELAY = 1_500;
const TX_JIT_DELAY = 30_000;
const TX_MARGIN_DELAY = 1_000;
const TX_MAX_ADVANCE_DELAY = 3 * 128 * 1_000_000;
const ASAP_DELAY = 1_000_000;
const WRAP = 2 ** 32;

export type TxAckError = 'NONE' | 'TOO_LATE' | 'TOO_EARLY' | 'COLLISION_PACKET' | 'TX_FREQ';

/** The radio a concentrator transmits with (`global_conf.json`'s `radio_0`). */
export interface ConcentratorRadio {
  /** Hz: the frequencies it can transmit on (`tx_freq_min`, `tx_freq_max`); any when absent. */
  tx_freq_min?: number;
  tx_freq_max?: number;
}

export interface QueuedTransmission {
  /** Concentrator µs (32 bits) it starts at. */
  count_us: number;
  /** µs on the air. */
  airtime_us: number;
  txpk: Record<string, unknown>;
}

/** Time on air (µs) of a `txpk` as a packet forwarder computes it. */
export function txpkAirtimeUs(txpk: Record<string, unknown>): number {
  const size = Number(txpk.size ?? Buffer.from(String(txpk.data ?? ''), 'base64').length);
  const crc = txpk.ncrc !== true;
  if (txpk.modu === 'FSK') return Math.ceil(((5 + 3 + 1 + size + (crc ? 2 : 0)) * 8 * 1e6) / Number(txpk.datr));
  const match = /^SF(\d+)BW(\d+)$/.exec(String(txpk.datr));
  if (!match) throw new Error(`unknown LoRa data rate ${String(txpk.datr)}`);
  const sf = Number(match[1]);
  const bwHz = Number(match[2]) * 1000;
  const cr = Number(String(txpk.codr ?? '4/5').split('/')[1]) - 4;
  const symbolUs = (2 ** sf / bwHz) * 1e6;
  const lowDataRate = symbolUs >= 16_000 ? 1 : 0;
  const preambleSymbols = Number(txpk.prea ?? 8) + 4.25;
  const payloadSymbols = 8 + Math.max(Math.ceil((8 * size - 4 * sf + 28 + (crc ? 16 : 0)) / (4 * (sf - 2 * lowDataRate))) * (cr + 4), 0);
  return Math.round((preambleSymbols + payloadSymbols) * symbolUs);
}

export class ConcentratorQueue {
  readonly queued: QueuedTransmission[] = [];

  constructor(private readonly radio: ConcentratorRadio = {}) {}

  /** Takes a `txpk` at concentrator time `nowUs` (32 bits): the TX_ACK's error. */
  enqueue(txpk: Record<string, unknown>, nowUs: number): TxAckError {
    this.forget(nowUs);
    // lora_pkt_fwd.c checks the frequency (`freq`, MHz) against the RF chain's TX range before the JIT queue.
    const hz = Math.round(Number(txpk.freq) * 1e6);
    if (hz < (this.radio.tx_freq_min ?? -Infinity) || hz > (this.radio.tx_freq_max ?? Infinity)) return 'TX_FREQ';
    const airtime = txpkAirtimeUs(txpk);
    const pre = TX_START_DELAY + TX_JIT_DELAY;
    let count = typeof txpk.tmst === 'number' ? txpk.tmst >>> 0 : undefined;
    const immediate = txpk.imme === true;
    if (immediate) {
      count = (nowUs + ASAP_DELAY) >>> 0;
      for (const other of [...this.queued].sort((a, b) => ahead(a.count_us, nowUs) - ahead(b.count_us, nowUs)))
        if (this.collides(count, airtime, pre)) count = (other.count_us + other.airtime_us + pre + TX_JIT_DELAY + TX_MARGIN_DELAY) >>> 0;
    }
    // A GPS-timed packet (tmms): the simulation has no GPS to hold it against; it is taken as sent.
    if (count === undefined) return 'NONE';
    if (ahead(count, nowUs) <= TX_START_DELAY + TX_MARGIN_DELAY + TX_JIT_DELAY) return 'TOO_LATE';
    if (!immediate && ahead(count, nowUs) > TX_MAX_ADVANCE_DELAY) return 'TOO_EARLY';
    if (this.collides(count, airtime, pre)) return 'COLLISION_PACKET';
    this.queued.push({ count_us: count, airtime_us: airtime, txpk });
    return 'NONE';
  }

  private collides(count: number, airtime: number, pre: number): boolean {
    return this.queued.some(
      (other) =>
        (count - other.count_us + WRAP) % WRAP <= pre + other.airtime_us + TX_MARGIN_DELAY ||
        (other.count_us - count + WRAP) % WRAP <= pre + airtime + TX_MARGIN_DELAY,
    );
  }

  /** Packets sent by now leave the queue (jit_peek drops them once they are behind). */
  private forget(nowUs: number): void {
    for (let i = this.queued.length - 1; i >= 0; i--) {
      const q = this.queued[i];
      if (ahead(q.count_us + q.airtime_us, nowUs) > TX_MAX_ADVANCE_DELAY) this.queued.splice(i, 1);
    }
  }
}

/** µs from `nowUs` to `countUs`, in unsigned 32-bit arithmetic (a time just passed is far ahead). */
function ahead(countUs: number, nowUs: number): number {
  return (countUs - nowUs + WRAP) % WRAP;
}
