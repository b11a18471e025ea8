import type { UplinkMessageJson } from '../io/messages';

/**
 * Copies of one frame that this Gateway Server receives from several of its gateways within a
 * short window go to the Network Server as one UplinkMessage: every copy's `rx_metadata` and
 * correlation IDs, the first copy's settings and receive time. The NS deduplicates and merges
 * across Gateway Servers anyway (its 200 ms window); merging here first spares it an RPC, a
 * deduplication round trip and a decode per extra copy (four gateways hearing every frame make
 * four calls one). `windowMs` 0 sends every copy at once, alone.
 *
 * Each copy's caller gets the outcome of the one call that carried it. A frame is looked at once,
 * when its first copy opens it (`refuse`: a PHYPayload checked once, its other copies being the
 * same bytes; admitted or not): the copies of a frame refused are refused with it, with the same
 * refusal, until its window closes.
 */
export class UplinkCoalescer<R, S = true> {
  /** Open frames in the order they opened (so in the order they are due); `refused`: not sent. */
  private readonly open = new Map<string, { message: UplinkMessageJson; due: number; outcome?: Promise<R>; refused?: S; release: () => void }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly windowMs: number,
    private readonly send: (message: UplinkMessageJson) => Promise<R>,
  ) {}

  /** A copy to send with the other copies of its frame, unless `refuse` (asked once per frame, with its first copy) refuses the frame. */
  submit(message: UplinkMessageJson, refuse: () => S | undefined = () => undefined): Submitted<R, S> {
    if (this.windowMs <= 0) {
      const refused = refuse();
      // Sent in the next microtask, as a window's frames are sent later: after what the caller does on its return (its receive event).
      return refused === undefined ? { outcome: Promise.resolve().then(() => this.send(message)) } : { refused, first: true };
    }
    const key = frameKey(message);
    const held = this.open.get(key);
    if (held) {
      if (held.refused !== undefined) return { refused: held.refused, first: false };
      held.message.rx_metadata.push(...message.rx_metadata);
      held.message.correlation_ids.push(...message.correlation_ids);
      return { outcome: held.outcome as Promise<R> };
    }
    const due = Date.now() + this.windowMs;
    this.timer ??= setTimeout(() => this.closeDue(), this.windowMs);
    const refused = refuse();
    if (refused !== undefined) {
      this.open.set(key, { message, due, refused, release: () => undefined });
      return { refused, first: true };
    }
    const merged: UplinkMessageJson = { ...message, rx_metadata: [...message.rx_metadata], correlation_ids: [...message.correlation_ids] };
    let release!: () => void;
    const outcome = new Promise<void>((resolve) => (release = resolve)).then(() => this.send(merged));
    this.open.set(key, { message: merged, due, outcome, release });
    return { outcome };
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

/** What became of a submitted copy: the outcome of the call that carried it, or its frame's refusal (`first`: this copy opened the frame). */
export type Submitted<R, S = true> = { outcome: Promise<R> } | { refused: S; first: boolean };

/** A frame whose window closes this soon goes with those already closed. */
const BATCH_SLACK_MS = 2;

/** A frame's identity across its copies (as the NS's deduplication key): PHYPayload, frequency, data rate. */
function frameKey(message: UplinkMessageJson): string {
  const { data_rate: rate, frequency } = message.settings;
  const dataRate = 'lora' in rate ? `${rate.lora.spreading_factor}/${rate.lora.bandwidth}/${rate.lora.coding_rate}` : `fsk/${rate.fsk.bit_rate}`;
  return `${message.raw_payload}\0${frequency}\0${dataRate}`;
}
