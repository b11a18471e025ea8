/**
 * One received copy of an uplink as the deduplicator keeps it (the metadata of its gateway and
 * its own `gs:uplink:` correlation ID), and the merge of all copies once the window has passed:
 * every copy's radio metadata, the correlation IDs of all copies (the seed: "where events were
 * merged, the list holds the correlation IDs of all merged events"), and the number of distinct
 * gateways that heard it (TTS `RXMetadataStats`).
 */
export interface UplinkCopy {
  rx_metadata: Array<Record<string, unknown>>;
  correlation_ids: string[];
}

export interface MergedUplink {
  rx_metadata: Array<Record<string, unknown>>;
  correlation_ids: string[];
  gateway_count: number;
}

/** At most this many metadata entries per uplink (TTS: 50). */
export const MAX_MERGED_METADATA = 50;

/** The context of the events after the merge: the copies' correlation IDs with the call's. */
export function mergedContext<C extends { correlation_ids: string[] }>(ctx: C, merged: MergedUplink): C {
  return { ...ctx, correlation_ids: [...new Set([...merged.correlation_ids, ...ctx.correlation_ids])] };
}

export function mergeCopies(first: UplinkCopy, copies: readonly unknown[]): MergedUplink {
  const all = [first, ...(copies as UplinkCopy[]).filter((c) => c && Array.isArray(c.rx_metadata))];
  const seen = new Set<string>();
  const rx_metadata: Array<Record<string, unknown>> = [];
  const correlation_ids = new Set<string>();
  for (const copy of all) {
    for (const id of copy.correlation_ids ?? []) correlation_ids.add(id);
    for (const md of copy.rx_metadata) {
      // The first copy is also among the accumulated ones: each gateway antenna's entry once.
      const key = copyKey(md);
      if (seen.has(key) || rx_metadata.length >= MAX_MERGED_METADATA) continue;
      seen.add(key);
      rx_metadata.push(md);
    }
  }
  return { rx_metadata, correlation_ids: [...correlation_ids], gateway_count: new Set(rx_metadata.map(gatewayOf)).size };
}

/**
 * What tells a gateway antenna's entry from another's: its gateway, antenna and uplink token. The
 * usual entry (a whole antenna number, a token or none) is keyed without a JSON text per entry
 * (`<antenna>:<gateway length>:<gateway>:t<token>`, or `n` for none: one key per triple); any
 * other by its JSON, as before (the two forms never meet: a JSON key starts with `[`, the other
 * with a digit or `-`).
 */
function copyKey(md: Record<string, unknown>): string {
  const antenna = md.antenna_index ?? 0;
  const token = md.uplink_token;
  if (Number.isInteger(antenna) && (typeof token === 'string' || token === undefined || token === null)) {
    const gateway = gatewayOf(md);
    return `${antenna as number}:${gateway.length}:${gateway}:${typeof token === 'string' ? `t${token}` : 'n'}`;
  }
  return JSON.stringify([gatewayOf(md), antenna, token ?? null]);
}

function gatewayOf(md: Record<string, unknown>): string {
  const ids = md.gateway_ids as { gateway_id?: string; eui?: string } | undefined;
  return ids?.gateway_id ?? ids?.eui ?? '';
}

/**
 * The downlink paths of merged metadata, best first (TTS `downlinkPathsFromMetadata`: by SNR,
 * then channel RSSI), one per gateway: the uplink tokens to offer the Gateway Servers.
 */
export function downlinkPaths(rxMetadata: ReadonlyArray<Record<string, unknown>>): Array<{ gateway_id: string; uplink_token: string }> {
  const num = (v: unknown) => (typeof v === 'number' ? v : -Infinity);
  const sorted = [...rxMetadata]
    .filter((md) => typeof md.uplink_token === 'string' && gatewayOf(md))
    .sort((a, b) => num(b.snr) - num(a.snr) || num(b.channel_rssi ?? b.rssi) - num(a.channel_rssi ?? a.rssi));
  const seen = new Set<string>();
  const paths: Array<{ gateway_id: string; uplink_token: string }> = [];
  for (const md of sorted) {
    const gatewayId = (md.gateway_ids as { gateway_id?: string }).gateway_id;
    if (!gatewayId || seen.has(gatewayId)) continue;
    seen.add(gatewayId);
    paths.push({ gateway_id: gatewayId, uplink_token: md.uplink_token as string });
  }
  return paths;
}
