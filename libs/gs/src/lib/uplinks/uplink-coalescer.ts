import type { UplinkMessageJson } from '../io/messages';

/**
 * Copies of one frame that this Gateway Server receives from several of its gateways within a
 * short window go to the Network Server as one UplinkMessage: every copy's `rx_metadata` and
 * correlation IDs, the first copy's settings and receive time. The NS deduplicates and merges
 * across Gateway Servers anyway (its 200 ms window); merging here first spares it an RPC, a
 * deduplication round trip and a decode per extra copy (four gateways hearing every frame make
 * four calls one). `windowMs` 0 sends every copy at once, alone.
 *
 * Each copy's caller gets the outcome of the one call that carried it. A frame is checked once per
 * window (`refuse`, with its first copy): its other copies are the same bytes.
 */
export class UplinkCoalescer<R> {
  /** Open frames in the order they opened (so in the order they are due). */
  private readonly open = new Map<string, { message: UplinkMessageJson; due: number; outcome: Promise<R>; release: () => void }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly windowMs: number,
    private readonly send: (message: UplinkMessageJson) => Promise<R>,
  ) {}

  /**
   * A copy to send with the other copies of its frame. `refuse` is asked only when no copy of the
   * frame is open (the first copy in its window): an outcome from it drops the copy without
   * opening the frame or sending anything.
   */
  submit(message: UplinkMessageJson, refuse?: () => R | undefined): Promise<R> {
    if (this.windowMs <= 0) {
      const refused = refuse?.();
      return refused === undefined ? this.send(message) : Promise.resolve(refused);
    }
    const key = frameKey(message);
    const held = this.open.get(key);
    if (held) {
      held.message.rx_metadata.push(...message.rx_metadata);
      held.message.correlation_ids.push(...message.correlation_ids);
      return held.outcome;
    }
    const refused = refuse?.();
    if (refused !== undefined) return Promise.resolve(refused);
    const merged: UplinkMessageJson = { ...message, rx_metadata: [...message.rx_metadata], correlation_ids: [...message.correlation_ids] };
    let release!: () => void;
    const outcome = new Promise<void>((resolve) => (release = resolve)).then(() => this.send(merged));
    this.open.set(key, { message: merged, due: Date.now() + this.windowMs, outcome, release });
    this.timer ??= setTimeout(() => this.closeDue(), this.windowMs);
    return outcome;
  }

  /**
   * Sends every frame whose window has closed (or closes within `BATCH_SLACK_MS`), in one go: their
   * calls leave in one socket write rather than one each, then waits for the next frame's window.
   */
  private closeDue(): void {
    this.timer = undefined;
    const now = Date.now();
    for (const [key, frame] of this.open) {
      if (frame.due > now + BATCH_SLACK_MS) {
        this.timer = setTimeout(() => this.closeDue(), frame.due - now);
        return;
      }
      this.open.delete(key);
      frame.release();
    }
  }
}

/** A frame whose window closes this soon goes with those already closed. */
const BATCH_SLACK_MS = 2;

/** A frame's identity across its copies (as the NS's deduplication key): PHYPayload, frequency, data rate. */
function frameKey(message: UplinkMessageJson): string {
  const { data_rate: rate, frequency } = message.settings;
  const dataRate = 'lora' in rate ? `${rate.lora.spreading_factor}/${rate.lora.bandwidth}/${rate.lora.coding_rate}` : `fsk/${rate.fsk.bit_rate}`;
  return `${message.raw_payload}\0${frequency}\0${dataRate}`;
}
