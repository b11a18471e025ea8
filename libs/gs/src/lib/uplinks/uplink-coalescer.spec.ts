import type { UplinkMessageJson } from '../io/messages';
import { type Submitted, UplinkCoalescer } from './uplink-coalescer';

const copy = (gateway: string, payload = 'QAEAACaAAQAB', frequency = '868100000'): UplinkMessageJson => ({
  raw_payload: payload,
  settings: { data_rate: { lora: { spreading_factor: 7, bandwidth: 125000, coding_rate: '4/5' } }, frequency, timestamp: 1 },
  rx_metadata: [{ gateway_ids: { gateway_id: gateway, eui: '0000000000000001' }, uplink_token: `token-${gateway}` }] as UplinkMessageJson['rx_metadata'],
  received_at: '2026-11-24T12:00:00Z',
  correlation_ids: [`gs:uplink:${gateway}`],
});

describe('UplinkCoalescer', () => {
  it('sends the copies of one frame received within the window as one message; other frames apart; each caller gets its call’s outcome', async () => {
    const sent: UplinkMessageJson[] = [];
    const coalescer = new UplinkCoalescer(30, async (m) => (sent.push(m), `outcome-${sent.length}`));
    const outcomes = await Promise.all(
      [copy('a'), copy('b'), copy('c', 'QAEAACaAAgAB'), copy('d', 'QAEAACaAAQAB', '868300000')].map((c) => sent$(coalescer.submit(c))),
    );
    expect(sent).toHaveLength(3);
    expect(sent[0].rx_metadata.map((m) => m.uplink_token)).toEqual(['token-a', 'token-b']);
    expect(sent[0].correlation_ids).toEqual(['gs:uplink:a', 'gs:uplink:b']);
    expect(outcomes[0]).toBe(outcomes[1]);
    expect(new Set(outcomes).size).toBe(3);
    // After the window the same frame is sent again (a retransmission is the NS's business).
    await sent$(coalescer.submit(copy('e')));
    expect(sent).toHaveLength(4);
  });

  it('sends each copy alone at once with a window of 0', async () => {
    const sent: UplinkMessageJson[] = [];
    const coalescer = new UplinkCoalescer(0, async (m) => void sent.push(m));
    await Promise.all([sent$(coalescer.submit(copy('a'))), sent$(coalescer.submit(copy('b')))]);
    expect(sent).toHaveLength(2);
  });

  it('looks at a frame once, when its first copy opens it: the copies of a frame refused are refused with it, and only the first says it opened it', async () => {
    const sent: UplinkMessageJson[] = [];
    const coalescer = new UplinkCoalescer<void, string>(30, async (m) => void sent.push(m));
    let admits = 0;
    const refuse = () => (admits++, 'shed');
    expect(coalescer.submit(copy('a'), refuse)).toEqual({ refused: 'shed', first: true });
    expect(coalescer.submit(copy('b'), refuse)).toEqual({ refused: 'shed', first: false });
    const other = coalescer.submit(copy('c', 'QAEAACaAAgAB'), () => void admits++);
    await sent$(other);
    expect(admits).toBe(2);
    expect(sent.map((m) => m.rx_metadata.map((r) => r.uplink_token))).toEqual([['token-c']]);
    // Once the window closed, the frame is a new one again (admitted or not anew).
    await sent$(coalescer.submit(copy('d')));
    expect(sent).toHaveLength(2);
    expect(new UplinkCoalescer(0, async () => 1).submit(copy('e'), () => true)).toEqual({ refused: true, first: true });
  });
});

/** The outcome of an admitted copy's call. */
function sent$<R, S>(submitted: Submitted<R, S>): Promise<R> {
  if (!('outcome' in submitted)) throw new Error('the copy was shed');
  return submitted.outcome;
}
