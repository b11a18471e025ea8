import { downlinkPaths, MAX_MERGED_METADATA, mergeCopies } from './merged-uplink';

const md = (gateway: string, snr: number, rssi: number, antenna = 0) => ({
  gateway_ids: { gateway_id: gateway, eui: '0000000000000000' },
  antenna_index: antenna,
  snr,
  channel_rssi: rssi,
  uplink_token: `${gateway}-${antenna}`,
});

describe('merged uplink copies', () => {
  it('merges every copy once (the first copy is also among the accumulated), counts gateways and keeps all correlation IDs', () => {
    const first = { rx_metadata: [md('a', 1, -100)], correlation_ids: ['gs:uplink:A'] };
    const merged = mergeCopies(first, [first, { rx_metadata: [md('b', 9, -40), md('b', 7, -42, 1)], correlation_ids: ['gs:uplink:B'] }, 'junk']);
    expect(merged.rx_metadata).toHaveLength(3);
    expect(merged.gateway_count).toBe(2);
    expect(merged.correlation_ids).toEqual(['gs:uplink:A', 'gs:uplink:B']);
  });

  it('keeps one entry per gateway, antenna and uplink token, whatever the fields look like', () => {
    const entry = (fields: Record<string, unknown>) => ({ gateway_ids: { gateway_id: 'gw' }, ...fields });
    const entries = [
      entry({}),
      entry({ antenna_index: 0 }),
      entry({ antenna_index: 0, uplink_token: null }),
      entry({ antenna_index: 1 }),
      entry({ uplink_token: 'n' }),
      entry({ uplink_token: '' }),
      entry({ antenna_index: 1.5 }),
      entry({ antenna_index: '1' }),
      entry({ uplink_token: 7 }),
      { gateway_ids: { eui: '0:gw:n' } },
      { gateway_ids: { gateway_id: 'g' }, uplink_token: 'w:n' },
    ];
    const merged = mergeCopies({ rx_metadata: entries, correlation_ids: [] }, [{ rx_metadata: entries.map((e) => ({ ...e })), correlation_ids: [] }]);
    expect(merged.rx_metadata).toEqual([entries[0], ...entries.slice(3)]);
  });

  it('keeps at most 50 metadata entries', () => {
    const copies = Array.from({ length: 60 }, (_, i) => ({ rx_metadata: [md(`g${i}`, 0, -100)], correlation_ids: [] }));
    expect(mergeCopies(copies[0], copies).rx_metadata).toHaveLength(MAX_MERGED_METADATA);
  });

  it('offers downlink paths best SNR first, then RSSI, one per gateway, only with uplink tokens', () => {
    const paths = downlinkPaths([
      md('weak', -5, -110),
      md('strong', 9, -45),
      md('strong', 3, -40, 1),
      md('loud', 9, -30),
      { ...md('none', 20, -20), uplink_token: undefined },
    ]);
    expect(paths).toEqual([
      { gateway_id: 'loud', uplink_token: 'loud-0' },
      { gateway_id: 'strong', uplink_token: 'strong-0' },
      { gateway_id: 'weak', uplink_token: 'weak-0' },
    ]);
  });
});
