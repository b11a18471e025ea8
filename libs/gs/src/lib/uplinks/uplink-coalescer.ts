import type { UplinkMessageJson } from '../io/messages';

/**
 * Copies of one frame that this Gateway Server receives from several of its gateways within a
 * short window go to the Network Server as one UplinkMessage: every copy's `rx_metadata` and
 * correlation IDs, the first copy's settings and receive time. The NS deduplicates and merges
 * across Gateway Servers anyway (its 200 ms window); merging here first spares it an RPC, a
 * deduplication round trip and a decode per extra copy (four gateways hearing every frame make
 * four calls one). `windowMs` 0 sends every copy at once, alone.
 *
 * Each copy's caller gets the outcome of the one call that carried it. A frame is admitted (or
 * not) once, when its first copy opens it (`admit`): the copies of a frame that was not are shed
 * with it, until its window closes.
 */
export class UplinkCoalescer<R> {
  /** Open frames in the order they opened (so in the order they are due); `outcome` undefined: shed. */
  private readonly open = new Map<string, { message: UplinkMessageJson; due: number; outcome?: Promise<R>; release: () => void }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly windowMs: number,
    private readonly send: (message: UplinkMessageJson) => Promise<R>,
  ) {}

  submit(message: UplinkMessageJson, admit: () => boolean = () => true): Submitted<R> {
    // Sent in the next microtask, as a window's frames are sent later: after what the caller does on its return (its receive event).
    if (this.windowMs <= 0) return admit() ? { outcome: Promise.resolve().then(() => this.send(message)) } : { shed: true, first: true };
    const key = frameKey(message);
    const held = this.open.get(key);
    if (held) {
      if (!held.outcome) return { shed: true, first: false };
      held.message.rx_metadata.push(...message.rx_metadata);
      held.message.correlation_ids.push(...message.correlation_ids);
      return { outcome: held.outcome };
    }
    const due = Date.now() + this.windowMs;
    this.timer ??= setTimeout(() => this.closeDue(), this.windowMs);
    if (!admit()) {
      this.open.set(key, { message, due, release: () => undefined });
      return { shed: true, first: true };
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

/** What became of a submitted copy: the outcome of the call that carried it, or shed with its frame (`first`: this copy opened the frame). */
export type Submitted<R> = { outcome: Promise<R> } | { shed: true; first: boolean };

/** A frame whose window closes this soon goes with those already closed. */
const BATCH_SLACK_MS = 2;

/** A frame's identity across its copies (as the NS's deduplication key): PHYPayload, frequency, data rate. */
function frameKey(message: UplinkMessageJson): string {
  return `${message.raw_payload}\0${message.settings.frequency}\0${JSON.stringify(message.settings.data_rate)}`;
}
