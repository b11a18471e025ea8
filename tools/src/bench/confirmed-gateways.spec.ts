import { answerSlotUs, confirmedGateways, JOIN_ACCEPT_BYTES, RADIO_GAP_US } from './confirmed-gateways';
import { type Gateway, planCopies } from './radio';

describe('gateways for a confirmed sub-phase', () => {
  it('holds a radio for the longest answer at the slowest data rate, the JIT gap and the jitter', () => {
    // 23 bytes (an ACK with a 10-byte application payload) without CRC: SF7 56.6 ms, SF9 185.3 ms (Semtech's formula).
    expect(answerSlotUs(['SF7BW125'], 23, 0)).toBe(56_576 + RADIO_GAP_US);
    expect(answerSlotUs(['SF7BW125', 'SF8BW125', 'SF9BW125'], 23, 5)).toBe(185_344 + RADIO_GAP_US + 5_000);
  });

  it('11 to 13 SF7 answers a second per gateway: 100 confirmed uplinks a second need 9 gateways at SF7, 23 with SF9 among the rates', () => {
    // An empty ACK (13 bytes) and one with the application's 10 bytes.
    expect(Math.floor(1e6 / answerSlotUs(['SF7BW125'], 13, 0))).toBe(13);
    expect(Math.floor(1e6 / answerSlotUs(['SF7BW125'], 23, 0))).toBe(11);
    expect(confirmedGateways(100, answerSlotUs(['SF7BW125'], 23, 0), 4)).toBe(9);
    expect(confirmedGateways(100, answerSlotUs(['SF7BW125', 'SF8BW125', 'SF9BW125'], 23, 5), 4)).toBe(23);
    // Each gateway is best every gateways / rate seconds: never less than a slot.
    for (const rate of [10, 50, 100, 250, 500]) {
      const slot = answerSlotUs(['SF7BW125', 'SF8BW125', 'SF9BW125'], 23, 5);
      const n = confirmedGateways(rate, slot, 4);
      expect((n / rate) * 1e6).toBeGreaterThanOrEqual(slot);
      expect(n === 4 || ((n - 1) / rate) * 1e6 < slot).toBe(true);
    }
  });

  it('join-accepts (33 bytes with the CFList) up to SF9: 29 gateways for 100 joins a second, 63 for 220', () => {
    const slot = answerSlotUs(['SF7BW125', 'SF8BW125', 'SF9BW125'], JOIN_ACCEPT_BYTES, 5);
    // 33 bytes at SF9 without CRC: 60.25 symbols of 4.096 ms.
    expect(slot).toBe(246_784 + RADIO_GAP_US + 5_000);
    expect(confirmedGateways(100, slot, 4)).toBe(29);
    expect(confirmedGateways(220, slot, 4)).toBe(63);
  });

  it('never fewer than the gateways that hear each uplink', () => {
    expect(confirmedGateways(1, answerSlotUs(['SF9BW125'], 23, 5), 4)).toBe(4);
    expect(confirmedGateways(0, 200_000, 4)).toBe(4);
  });

  it('a transmission heard by a few gateways: those from its best one on, the best with the strongest signal (the round robin the rule counts on)', () => {
    const gateways = Array.from(
      { length: 6 },
      (_, g) => ({ id: `g${g}`, clock: g * 1000, tmsts: new Set(), answers: new Map(), seen: 0 }) as unknown as Gateway,
    );
    const delays = { rx1Us: 1_000_000, rx2Us: 2_000_000 };
    const planned = [0, 1, 2, 3, 4, 5].map((tx) => planCopies(gateways, tx, 0, 0, 0, delays, { best: tx % 6, count: 4 }));
    expect(planned.map((p) => p.best)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(planned[4].copies.map((c) => c.gateway)).toEqual([4, 5, 0, 1]);
    const snr = planned[4].copies.map((c) => c.lsnr);
    expect(snr).toEqual([...snr].sort((a, b) => b - a));
    // Every gateway best once in 6, heard 4 times in 6.
    for (const gw of gateways) expect(gw.tmsts.size).toBe(4);
  });
});
