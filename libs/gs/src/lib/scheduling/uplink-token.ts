/**
 * The uplink token of a received copy (TTS `UplinkToken`, opaque to everyone but the GS): the
 * gateway, the antenna, the concentrator time of reception and the server's time of reception.
 * The NS hands it back with a class A downlink; the GS reads from it which gateway to send on and
 * when the receive windows open (concentrator time + delay), and whether RX1 is still reachable
 * (server time + delay).
 */
export interface UplinkToken {
  gateway_id: string;
  eui: string;
  antenna_index: number;
  /** Concentrator timestamp (µs) of the uplink. */
  timestamp: number;
  /** Server time (Unix ms) the uplink was received at. */
  received_ms: number;
}

/** Base64 of the JSON array `[gateway_id, eui, antenna_index, timestamp, received_ms]` (written as `JSON.stringify` writes it, without building the array). */
export function encodeUplinkToken(t: UplinkToken): string {
  return Buffer.from(`[${JSON.stringify(t.gateway_id)},${JSON.stringify(t.eui)},${t.antenna_index},${t.timestamp},${t.received_ms}]`).toString('base64');
}

/** The token's content; undefined for bytes that are not one of ours. */
export function decodeUplinkToken(token: string): UplinkToken | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 5) return undefined;
  const [gateway_id, eui, antenna_index, timestamp, received_ms] = parsed as unknown[];
  if (typeof gateway_id !== 'string' || typeof eui !== 'string' || !/^[0-9A-F]{16}$/.test(eui)) return undefined;
  const uint = (v: unknown, max: number): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= max;
  if (!uint(antenna_index, 255) || !uint(timestamp, 0xffffffff) || !uint(received_ms, Number.MAX_SAFE_INTEGER)) return undefined;
  return { gateway_id, eui, antenna_index, timestamp, received_ms };
}
