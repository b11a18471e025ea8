import { adaptDataRate, adrLossRate, type AdrInput, type AdrUplink, OPTIMAL_ADR_UPLINK_COUNT } from './adr';

/**
 * Recorded uplink series: best SNR (dB) per uplink as gateways reported it, in the order received.
 * The margins below follow from the max of each series, the demodulation floor of its SF at
 * 125 kHz (SF7 −7.5 … SF12 −20) and the default 15 dB margin.
 */
const SERIES = {
  /** EU868, SF12, a device near one gateway: max +11.0. */
  strongSf12: [7.2, 8.5, 6.8, 9.0, 10.2, 7.5, 8.8, 11.0, 9.5, 6.5, 8.0, 7.8, 9.2, 10.5, 8.2, 7.0, 9.8, 8.6, 7.4, 10.8],
  /** EU868, SF7, a device at the edge of coverage: max −8.8, under SF7's −7.5 dB floor. */
  weakSf7: [-10.2, -9.5, -11.0, -8.8, -10.5, -9.9, -10.8, -9.1, -10.0, -11.2, -9.6, -10.4, -8.9, -10.7, -9.3, -10.1, -11.5, -9.8, -10.6, -9.4],
  /** EU868, SF9, a settled device: max −1.5, 11 dB above the floor, 4 dB short of the margin. */
  settledSf9: [-3.2, -2.5, -4.0, -2.8, -1.5, -3.6, -2.2, -3.9, -2.9, -1.8, -3.3, -2.6, -4.2, -2.0, -3.1, -2.7, -3.8, -1.9, -2.4, -3.5],
  /** US915 FSB2, SF10 (DR0): max +10.1. */
  usSf10: [6.5, 8.2, 7.1, 9.4, 5.8, 10.1, 7.7, 8.9, 6.2, 9.0, 7.3, 8.4, 6.9, 9.8, 7.5, 8.0, 6.6, 9.2, 7.9, 8.7],
};

/** Consecutive FCnts from `first`. */
const consecutive = (n: number, first = 100): number[] => Array.from({ length: n }, (_, i) => first + i);
/** Recorded FCnts of a lossy link: 20 frames received out of 100…125 (6 lost). */
const LOSSY_F_CNTS = [100, 101, 102, 104, 105, 106, 107, 109, 110, 111, 113, 114, 115, 116, 118, 119, 121, 122, 124, 125];
/** 20 frames received out of 100…139 (20 lost). */
const BAD_F_CNTS = [100, 102, 104, 106, 107, 110, 112, 114, 116, 119, 120, 122, 124, 126, 129, 130, 132, 134, 137, 139];

/** An uplink as `recent_adr_uplinks` holds it, heard by one gateway per SNR given. */
function uplink(spreadingFactor: number, snrs: number | readonly number[], fCnt: number, bandwidth = 125_000): AdrUplink {
  return {
    settings: { data_rate: { lora: { spreading_factor: spreadingFactor, bandwidth } } },
    rx_metadata: [snrs].flat().map((snr, i) => ({ gateway_ids: { gateway_id: `gtw-${i + 1}` }, snr, channel_rssi: -120 + snr })),
    payload: { mac_payload: { f_hdr: { f_cnt: fCnt } } },
  };
}

function series(spreadingFactor: number, snrs: readonly number[], fCnts: readonly number[] = consecutive(snrs.length)): AdrUplink[] {
  return snrs.map((snr, i) => uplink(spreadingFactor, snr, fCnts[i]));
}

/** An EU868 device with all eight plan channels (DR0–DR5) and the default margin. */
function input(uplinks: readonly AdrUplink[], overrides: Partial<AdrInput> = {}): AdrInput {
  return {
    bandId: 'EU_863_870',
    uplinks,
    current: { adr_data_rate_index: 0, adr_tx_power_index: 0, adr_nb_trans: 1 },
    margin: 15,
    minDataRateIndex: 0,
    maxDataRateIndex: 5,
    ...overrides,
  };
}
const at = (dataRateIndex: number, txPowerIndex = 0, nbTrans = 1) => ({
  adr_data_rate_index: dataRateIndex,
  adr_tx_power_index: txPowerIndex,
  adr_nb_trans: nbTrans,
});

describe('adaptDataRate', () => {
  describe('spending margin', () => {
    it('a strong SF12 device goes to DR5 (12.5 dB of its 16 dB margin), then 2 dB lower power with the rest', () => {
      expect(adaptDataRate(input(series(12, SERIES.strongSf12)))).toEqual(at(5, 1));
    });

    it('the best SNR of any gateway counts', () => {
      const twoGateways = SERIES.strongSf12.map((snr, i) => uplink(12, [snr - 8, snr], 100 + i));
      expect(adaptDataRate(input(twoGateways))).toEqual(at(5, 1));
    });

    it('a data rate increase puts the TX power back to maximum before spending the rest', () => {
      expect(adaptDataRate(input(series(12, SERIES.strongSf12), { current: at(0, 3) }))).toEqual(at(5, 1));
    });

    it('stops at the highest data rate the channels allow, and spends the rest on power', () => {
      // 16 − 7.5 = 8.5 dB left at DR3: TX power index 4 (−8 dB).
      expect(adaptDataRate(input(series(12, SERIES.strongSf12), { maxDataRateIndex: 3 }))).toEqual(at(3, 4));
    });

    it("US915: no higher than the band's ADR maximum (DR3), whatever the margin", () => {
      // SF10 max +10.1: 10.1 dB of margin pays four steps; DR3 takes 7.5, TX power 1 takes 2 of the 2.6 left.
      const us = input(series(10, SERIES.usSf10), { bandId: 'US_902_928', maxDataRateIndex: 4 });
      expect(adaptDataRate(us)).toEqual(at(3, 1));
    });

    it('a settled device whose margin pays for nothing keeps its parameters', () => {
      expect(adaptDataRate(input(series(9, SERIES.settledSf9), { current: at(3) }))).toEqual(at(3));
    });
  });

  describe('a margin short of the configured one', () => {
    it('buys back TX power (−4 dB short: index 2 → 0), keeping the data rate', () => {
      expect(adaptDataRate(input(series(9, SERIES.settledSf9), { current: at(3, 2) }))).toEqual(at(3, 0));
    });

    it('with fewer than 20 uplinks, does not raise power by 2.5 dB or less (no flip-flopping on thin evidence)', () => {
      expect(adaptDataRate(input(series(9, SERIES.settledSf9.slice(0, 8)), { current: at(3, 1) }))).toEqual(at(3, 1));
      expect(adaptDataRate(input(series(9, SERIES.settledSf9), { current: at(3, 1) }))).toEqual(at(3, 0));
    });

    it('a weak SF7 device under the demodulation floor at full power drops as many steps as the margin is short, NbTrans up for its losses', () => {
      // Max −8.8 dB: 1.3 dB under SF7's floor, 16.3 dB short: seven steps wanted, DR0 is the lowest.
      const weak = series(7, SERIES.weakSf7, BAD_F_CNTS);
      expect(adaptDataRate(input(weak, { current: at(5, 0, 1) }))).toEqual(at(0, 0, 3));
      // With a 5 dB margin it is 6.3 dB short: three steps, DR2.
      expect(adaptDataRate(input(weak, { current: at(5), margin: 5 }))).toEqual(at(2, 0, 3));
    });

    it('a device under the floor that can still raise its power does that first, just enough, and keeps its data rate', () => {
      // No configured margin: 1.3 dB short at TX power index 3; index 2 (+2 dB) covers it.
      expect(adaptDataRate(input(series(7, SERIES.weakSf7), { current: at(5, 3), margin: 0 }))).toEqual(at(5, 2));
    });

    it('above the floor the data rate is never lowered (TTS: only the device backs off)', () => {
      expect(adaptDataRate(input(series(9, SERIES.settledSf9), { current: at(3, 0), margin: 25 }))).toEqual(at(3, 0));
    });
  });

  describe('NbTrans from frame loss', () => {
    it('10–30 % of frames missing (6 of 26): NbTrans 1 → 2', () => {
      expect(adaptDataRate(input(series(12, SERIES.strongSf12, LOSSY_F_CNTS)))).toEqual(at(5, 1, 2));
    });

    it('30 % or more missing: NbTrans 3', () => {
      expect(adaptDataRate(input(series(12, SERIES.strongSf12, BAD_F_CNTS)))).toEqual(at(5, 1, 3));
    });

    it('no loss: NbTrans steps back down (3 → 2 → 1)', () => {
      expect(adaptDataRate(input(series(12, SERIES.strongSf12), { current: at(0, 0, 3) }))?.adr_nb_trans).toBe(2);
      expect(adaptDataRate(input(series(12, SERIES.strongSf12), { current: at(0, 0, 2) }))?.adr_nb_trans).toBe(1);
    });

    it('left alone with fewer than 10 uplinks, whatever the gaps', () => {
      expect(adaptDataRate(input(series(12, SERIES.strongSf12.slice(0, 9), BAD_F_CNTS), { current: at(0, 0, 1) }))?.adr_nb_trans).toBe(1);
    });
  });

  describe('which uplinks count', () => {
    it('none: no decision', () => {
      expect(adaptDataRate(input([]))).toBeUndefined();
    });

    it('only the latest run at the current data rate: right after an ADR change there is nothing to judge', () => {
      expect(adaptDataRate(input(series(12, SERIES.strongSf12), { current: at(5) }))).toBeUndefined();
      const mixed = [...series(9, SERIES.settledSf9.slice(0, 10)), ...series(12, SERIES.strongSf12.slice(0, 5), consecutive(5, 110))];
      // Five SF12 uplinks (max +10.2) with the safety margin: 12.7 dB, DR5 and no power change.
      expect(adaptDataRate(input(mixed))).toEqual(at(5, 0));
    });

    it('one uplink is enough (TTS), with a 2.5 dB safety margin under 20', () => {
      expect(OPTIMAL_ADR_UPLINK_COUNT).toBe(20);
      expect(adaptDataRate(input(series(12, [11.0])))).toEqual(at(5, 0));
      expect(adaptDataRate(input(series(12, [...SERIES.strongSf12.slice(1), 11.0])))).toEqual(at(5, 1));
    });

    it('not those before the last ADR change', () => {
      // The last five (max +10.8): 13.3 dB with the safety margin → DR5, no power change.
      expect(adaptDataRate(input(series(12, SERIES.strongSf12), { lastAdrChangeFCnt: 115 }))).toEqual(at(5, 0));
    });

    it('no SNR reported: no decision', () => {
      const blind = series(12, SERIES.strongSf12).map((u) => ({ ...u, rx_metadata: [{ gateway_ids: { gateway_id: 'gtw-1' } }] }));
      expect(adaptDataRate(input(blind))).toBeUndefined();
    });
  });

  describe('rejected indexes', () => {
    it('a rejected data rate is skipped for the next lower one (DR4, 6 dB left: TX power 3)', () => {
      expect(adaptDataRate(input(series(12, SERIES.strongSf12), { rejectedDataRateIndexes: [5] }))).toEqual(at(4, 3));
    });

    it('a rejected TX power index is skipped', () => {
      expect(adaptDataRate(input(series(12, SERIES.strongSf12), { rejectedTxPowerIndexes: [1] }))).toEqual(at(5, 0));
    });

    it('a rejected maximum power: index 1 is the strongest and its 2 dB are paid for', () => {
      expect(adaptDataRate(input(series(12, SERIES.strongSf12), { rejectedTxPowerIndexes: [0] }))).toEqual(at(5, 1));
    });

    it('every data rate or every TX power rejected: no decision', () => {
      expect(adaptDataRate(input(series(12, SERIES.strongSf12), { rejectedDataRateIndexes: [0, 1, 2, 3, 4, 5] }))).toBeUndefined();
      expect(adaptDataRate(input(series(12, SERIES.strongSf12), { rejectedTxPowerIndexes: [0, 1, 2, 3, 4, 5, 6, 7] }))).toBeUndefined();
    });
  });
});

describe('adrLossRate', () => {
  const frames = (fCnts: readonly number[]) => fCnts.map((fCnt) => uplink(12, 5, fCnt));

  it('lost frames over the FCnt span', () => {
    expect(adrLossRate(frames(consecutive(20)))).toBe(0);
    expect(adrLossRate(frames(LOSSY_F_CNTS))).toBeCloseTo(6 / 26);
    expect(adrLossRate(frames(BAD_F_CNTS))).toBeCloseTo(20 / 40);
  });

  it('a retransmission (repeated FCnt) is no loss; a counter reset starts the count again', () => {
    expect(adrLossRate(frames([10, 11, 11, 12]))).toBe(0);
    expect(adrLossRate(frames([50, 60, 0, 1, 3]))).toBeCloseTo(1 / 4);
  });

  it('0 with fewer than two uplinks; the 32-bit FCnt where the NS kept one', () => {
    expect(adrLossRate(frames([7]))).toBe(0);
    expect(
      adrLossRate([{ payload: { mac_payload: { full_f_cnt: 65_536 } } }, { payload: { mac_payload: { full_f_cnt: 65_538, f_hdr: { f_cnt: 2 } } } }]),
    ).toBeCloseTo(1 / 3);
  });
});
