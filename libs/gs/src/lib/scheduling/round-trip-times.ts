/**
 * The round-trip times measured to a gateway (TTS `io.rtts`): the latest MAX_RTTS, each forgotten
 * RTT_TTL_MS after it was measured. A Semtech UDP gateway's is the time from a PULL_RESP to its
 * TX_ACK (PULL_DATA → PULL_ACK is the gateway's measure, not the server's); another protocol
 * records its own. The scheduler needs a downlink at the gateway half a round trip after it sends
 * it (TTS: the 90th percentile once MIN_RTT_COUNT are known).
 */

export const MAX_RTTS = 20;
export const RTT_TTL_MS = 30 * 60_000;

export interface RoundTripStats {
  /** ms. */
  min: number;
  max: number;
  median: number;
  /** The requested percentile, ms. */
  percentile: number;
  count: number;
}

export class RoundTripTimes {
  private readonly items: Array<{ rtt_ms: number; at_ms: number }> = [];

  record(rttMs: number, atMs = Date.now()): void {
    this.items.push({ rtt_ms: rttMs, at_ms: atMs });
    if (this.items.length > MAX_RTTS) this.items.shift();
  }

  /** Statistics of the round-trip times of the last RTT_TTL_MS; undefined when there are none. */
  stats(percentile: number, nowMs = Date.now()): RoundTripStats | undefined {
    const sorted = this.items
      .filter((item) => nowMs - item.at_ms <= RTT_TTL_MS)
      .map((item) => item.rtt_ms)
      .sort((a, b) => a - b);
    if (sorted.length === 0) return undefined;
    const l = sorted.length;
    const median = l % 2 === 0 ? (sorted[l / 2 - 1] + sorted[l / 2]) / 2 : sorted[(l - 1) / 2];
    return { min: sorted[0], max: sorted[l - 1], median, percentile: sorted[Math.max(0, Math.floor((percentile / 100) * l) - 1)], count: l };
  }
}
