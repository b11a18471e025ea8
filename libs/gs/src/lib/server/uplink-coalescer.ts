import type { UplinkMessageJson } from '../udp/translation';

/**
 * Copies of one frame that this Gateway Server receives from several of its gateways within a
 * short window go to the Network Server as one UplinkMessage: every copy's `rx_metadata` and
 * correlation IDs, the first copy's settings and receive time. The NS deduplicates and merges
 * across Gateway Servers anyway (its 200 ms window); merging here first spares it an RPC, a
 * deduplication round trip and a decode per extra copy (four gateways hearing every frame make
 * four calls one). `windowMs` 0 sends every copy at once, alone.
 *
 * Each copy's caller gets the outcome of the one call that carried it.
 */
export class UplinkCoalescer<R> {
  private readonly open = new Map<string, { message: UplinkMessageJson; outcome: Promise<R> }>();

  constructor(
    private readonly windowMs: number,
    private readonly send: (message: UplinkMessageJson) => Promise<R>,
  ) {}

  submit(message: UplinkMessageJson): Promise<R> {
    if (this.windowMs <= 0) return this.send(message);
    const key = frameKey(message);
    const held = this.open.get(key);
    if (held) {
      held.message.rx_metadata.push(...message.rx_metadata);
      held.message.correlation_ids.push(...message.correlation_ids);
      return held.outcome;
    }
    const merged: UplinkMessageJson = { ...message, rx_metadata: [...message.rx_metadata], correlation_ids: [...message.correlation_ids] };
    const outcome = new Promise<void>((resolve) => setTimeout(resolve, this.windowMs)).then(() => {
      this.open.delete(key);
      return this.send(merged);
    });
    this.open.set(key, { message: merged, outcome });
    return outcome;
  }
}

/** A frame's identity across its copies (as the NS's deduplication key): PHYPayload, frequency, data rate. */
function frameKey(message: UplinkMessageJson): string {
  return `${message.raw_payload}\0${message.settings.frequency}\0${JSON.stringify(message.settings.data_rate)}`;
}
