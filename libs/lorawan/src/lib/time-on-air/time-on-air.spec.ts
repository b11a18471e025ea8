import { type DataRate } from '../frequency-plans/data-rates';
import { fskTimeOnAirUs, loraQuarterSymbols, loraTimeOnAirUs, lowDataRateOptimizationMandated, timeOnAirUs } from './time-on-air';

const lora = (spreading_factor: number, khz: number): DataRate => ({ lora: { spreading_factor, bandwidth: khz * 1000 } });

describe('time on air', () => {
  describe('LoRa, as TTS computes it (pkg/toa/toa_test.go expectations: CRC counted, 4/5 unless said)', () => {
    // TestDifferentLoRaSFs: 10 bytes at 125 kHz.
    it.each([
      [7, 41_216],
      [8, 72_192],
      [9, 144_384],
      [10, 288_768],
      [11, 577_536],
      [12, 991_232],
    ])('SF%i BW125, 10 bytes: %i µs', (sf, us) => {
      expect(loraTimeOnAirUs(10, { spreading_factor: sf, bandwidth: 125_000, crc: true })).toBe(us);
    });

    // TestDifferentLoRaBWs: SF7, 10 bytes.
    it.each([
      [125, 41_216],
      [250, 20_608],
      [500, 10_304],
    ])('SF7 BW%i, 10 bytes: %i µs', (khz, us) => {
      expect(loraTimeOnAirUs(10, { spreading_factor: 7, bandwidth: khz * 1000, crc: true })).toBe(us);
    });

    // TestDifferentLoRaCRs: SF7 BW125, 10 bytes.
    it.each([
      ['4/5', 41_216],
      ['4/6', 45_312],
      ['4/7', 49_408],
      ['4/8', 53_504],
    ])('SF7 BW125 CR %s, 10 bytes: %i µs', (codingRate, us) => {
      expect(loraTimeOnAirUs(10, { spreading_factor: 7, bandwidth: 125_000, coding_rate: codingRate, crc: true })).toBe(us);
    });

    // TestDifferentLoRaPayloadSizes: SF7 BW125; a block of 5 symbols holds 28 bits, so sizes step in 3.5 bytes.
    it.each([
      [13, 46_336],
      [14, 46_336],
      [15, 46_336],
      [16, 51_456],
      [17, 51_456],
      [18, 51_456],
      [19, 51_456],
    ])('SF7 BW125, %i bytes: %i µs', (size, us) => {
      expect(loraTimeOnAirUs(size, { spreading_factor: 7, bandwidth: 125_000, crc: true })).toBe(us);
    });
  });

  describe('LoRa, worked by hand from the datasheet formula', () => {
    it('SF12 BW125, 51 bytes (the figure airtime calculators give: 2465.8 ms)', () => {
      // Tsym = 4096 / 125 kHz = 32.768 ms; low data rate optimization (DE = 1).
      // ⌈(8·51 − 48 + 28 + 16) / (4·(12 − 2))⌉ = ⌈404 / 40⌉ = 11 blocks of 5 → 8 + 55 = 63 payload symbols.
      // (8 + 4.25 + 63) × 32.768 ms = 75.25 × 32.768 ms = 2465.792 ms.
      expect(loraTimeOnAirUs(51, { spreading_factor: 12, bandwidth: 125_000, crc: true })).toBe(2_465_792);
      expect(loraQuarterSymbols(51, { spreading_factor: 12, bandwidth: 125_000, crc: true })).toBe(301);
    });

    it('SF7 BW125, 51 bytes: 102.656 ms', () => {
      // ⌈(408 − 28 + 28 + 16) / 28⌉ = ⌈424 / 28⌉ = 16 blocks → 8 + 80 = 88; (12.25 + 88) × 1.024 ms.
      expect(loraTimeOnAirUs(51, { spreading_factor: 7, bandwidth: 125_000, crc: true })).toBe(102_656);
    });

    it.each([
      ['SF9 BW125, 23 bytes', 23, 9, 125, 205_824],
      ['SF10 BW125, 64 bytes', 64, 10, 125, 698_368],
      ['SF11 BW125, 255 bytes', 255, 11, 125, 5_001_216],
      ['SF12 BW125, 255 bytes', 255, 12, 125, 9_019_392],
      ['SF8 BW500 (US915 DR4), 20 bytes', 20, 8, 500, 25_728],
      ['SF7 BW250 (EU868 DR6), 30 bytes', 30, 7, 250, 35_968],
      ['SF7 BW125, no payload: preamble, header and CRC only', 0, 7, 125, 25_856],
      ['SF12 BW125, no payload', 0, 12, 125, 663_552],
    ])('uplink %s', (_name, size, sf, khz, us) => {
      expect(loraTimeOnAirUs(size, { spreading_factor: sf, bandwidth: khz * 1000, crc: true })).toBe(us);
    });

    it('a longer coding rate: SF12 BW125 CR 4/8, 51 bytes is 11 blocks of 8 symbols', () => {
      // (12.25 + 8 + 88) × 32.768 ms = 3547.136 ms.
      expect(loraTimeOnAirUs(51, { spreading_factor: 12, bandwidth: 125_000, coding_rate: '4/8', crc: true })).toBe(3_547_136);
    });

    it('without the payload CRC (LoRaWAN downlinks) a frame can be one block shorter, or the same', () => {
      // SF7 BW125, 10 bytes: ⌈(80 − 28 + 28) / 28⌉ = 3 blocks, not 4: (12.25 + 23) × 1.024 ms = 36.096 ms.
      expect(loraTimeOnAirUs(10, { spreading_factor: 7, bandwidth: 125_000, crc: false })).toBe(36_096);
      // SF9 BW125, 17 bytes: ⌈128 / 36⌉ = ⌈144 / 36⌉ = 4 blocks either way.
      expect(loraTimeOnAirUs(17, { spreading_factor: 9, bandwidth: 125_000, crc: false })).toBe(164_864);
      expect(loraTimeOnAirUs(17, { spreading_factor: 9, bandwidth: 125_000, crc: true })).toBe(164_864);
      // SF12 BW500 (US915 DR8), 33 bytes: ⌈(264 − 48 + 28) / 48⌉ = 6 = ⌈260 / 48⌉: 6 blocks → (12.25 + 38) × 8.192 ms.
      expect(loraTimeOnAirUs(33, { spreading_factor: 12, bandwidth: 500_000, crc: false })).toBe(411_648);
    });

    it('a class B beacon: 10 preamble symbols, implicit header, no CRC (EU868: 17 bytes at SF9)', () => {
      // ⌈(136 − 36 + 28 − 20) / 36⌉ = 3 blocks → 8 + 15 = 23; (10 + 4.25 + 23) × 4.096 ms = 152.576 ms.
      const beacon = { spreading_factor: 9, bandwidth: 125_000, crc: false, preamble_symbols: 10, implicit_header: true };
      expect(loraTimeOnAirUs(17, beacon)).toBe(152_576);
      // US915: 23 bytes at SF12 BW500: ⌈(184 − 48 + 8) / 48⌉ = 3 → 23; 37.25 × 8.192 ms.
      expect(loraTimeOnAirUs(23, { ...beacon, spreading_factor: 12, bandwidth: 500_000 })).toBe(305_152);
    });

    it('turns low data rate optimization on where a symbol lasts more than 16 ms, and lets the caller decide', () => {
      expect(lowDataRateOptimizationMandated(10, 125_000)).toBe(false);
      expect(lowDataRateOptimizationMandated(11, 125_000)).toBe(true);
      expect(lowDataRateOptimizationMandated(12, 125_000)).toBe(true);
      expect(lowDataRateOptimizationMandated(11, 250_000)).toBe(false);
      expect(lowDataRateOptimizationMandated(12, 250_000)).toBe(true);
      expect(lowDataRateOptimizationMandated(12, 500_000)).toBe(false);
      // SF12 BW250, 30 bytes: ⌈(240 − 48 + 44) / 40⌉ = 6 blocks with it, ⌈236 / 48⌉ = 5 without (what TTS computes here).
      expect(loraTimeOnAirUs(30, { spreading_factor: 12, bandwidth: 250_000, crc: true })).toBe(823_296);
      expect(loraTimeOnAirUs(30, { spreading_factor: 12, bandwidth: 250_000, crc: true, low_data_rate_optimization: false })).toBe(741_376);
      // SF10 BW125 with it forced on: ⌈(80 − 40 + 44) / 32⌉ = 3, the same 3 blocks as ⌈84 / 40⌉.
      expect(loraTimeOnAirUs(10, { spreading_factor: 10, bandwidth: 125_000, crc: true, low_data_rate_optimization: true })).toBe(288_768);
    });

    it('SF5 and SF6 as the SX126x datasheet counts them (6.25 preamble symbols more, no 8-bit overhead)', () => {
      // SF5 BW125, 10 bytes: ⌈(80 + 16 − 20 + 20) / 20⌉ = 5 blocks → 33; (8 + 6.25 + 33) × 256 µs = 12.096 ms.
      expect(loraTimeOnAirUs(10, { spreading_factor: 5, bandwidth: 125_000, crc: true })).toBe(12_096);
      // SF6: ⌈(80 + 16 − 24 + 20) / 24⌉ = 4 → 28; (14.25 + 28) × 512 µs = 21.632 ms.
      expect(loraTimeOnAirUs(10, { spreading_factor: 6, bandwidth: 125_000, crc: true })).toBe(21_632);
    });

    it('rounds a fractional microsecond up, for a bandwidth that is no LoRaWAN one', () => {
      // 40.25 symbols × 128 / 203.125 kHz = 25 363.69… µs.
      expect(loraTimeOnAirUs(10, { spreading_factor: 7, bandwidth: 203_125, crc: true })).toBe(25_364);
    });

    it('refuses what is not a LoRa frame', () => {
      const base = { spreading_factor: 7, bandwidth: 125_000, crc: true };
      expect(() => loraTimeOnAirUs(10, { ...base, spreading_factor: 4 })).toThrow(/spreading factor/);
      expect(() => loraTimeOnAirUs(10, { ...base, spreading_factor: 13 })).toThrow(/spreading factor/);
      expect(() => loraTimeOnAirUs(10, { ...base, bandwidth: 0 })).toThrow(/bandwidth/);
      expect(() => loraTimeOnAirUs(10, { ...base, coding_rate: '1/9' })).toThrow(/coding rate/);
      expect(() => loraTimeOnAirUs(10, { ...base, coding_rate: '4/5LI' })).toThrow(/coding rate/);
      expect(() => loraTimeOnAirUs(256, base)).toThrow(/0 to 255 bytes/);
      expect(() => loraTimeOnAirUs(-1, base)).toThrow(/0 to 255 bytes/);
      expect(() => loraTimeOnAirUs(1.5, base)).toThrow(/0 to 255 bytes/);
      expect(() => loraTimeOnAirUs(10, { ...base, preamble_symbols: -1 })).toThrow(/preamble/);
    });
  });

  describe('FSK', () => {
    it('200 bytes at 50 kbps: 33.76 ms (pkg/toa TestFSK)', () => {
      expect(fskTimeOnAirUs(200, 50_000)).toBe(33_760);
    });

    it.each([
      // (5 + 3 + 1 + PL + 2) bytes × 160 µs at 50 kbps.
      [0, 1_760],
      [13, 3_840],
      [255, 42_560],
    ])('%i bytes at 50 kbps: %i µs', (size, us) => {
      expect(fskTimeOnAirUs(size, 50_000)).toBe(us);
    });

    it('without the CRC two bytes less, and rounds a fractional microsecond up', () => {
      expect(fskTimeOnAirUs(13, 50_000, false)).toBe(3_520);
      // 24 bytes × 8 bits / 4.8 kbps = 40 000 µs; at 7 kbps 27 428.57… µs.
      expect(fskTimeOnAirUs(13, 4_800)).toBe(40_000);
      expect(fskTimeOnAirUs(13, 7_000)).toBe(27_429);
    });

    it('refuses a bit rate that is not a positive integer', () => {
      expect(() => fskTimeOnAirUs(13, 0)).toThrow(/bit rate/);
      expect(() => fskTimeOnAirUs(13, 50_000.5)).toThrow(/bit rate/);
    });
  });

  describe('a LoRaWAN frame at a data rate', () => {
    it('counts the CRC of an uplink and not of a downlink, unless told (TTS counts it for both)', () => {
      expect(timeOnAirUs(10, lora(7, 125), { direction: 'uplink' })).toBe(41_216);
      expect(timeOnAirUs(10, lora(7, 125), { direction: 'downlink' })).toBe(36_096);
      expect(timeOnAirUs(10, lora(7, 125), { direction: 'downlink', crc: true })).toBe(41_216);
    });

    it('takes the coding rate, 4/5 by default', () => {
      expect(timeOnAirUs(10, lora(7, 125), { direction: 'uplink', coding_rate: '4/8' })).toBe(53_504);
    });

    it('sends an FSK frame with its CRC either way', () => {
      const fsk: DataRate = { fsk: { bit_rate: 50_000 } };
      expect(timeOnAirUs(200, fsk, { direction: 'downlink' })).toBe(33_760);
      expect(timeOnAirUs(200, fsk, { direction: 'uplink' })).toBe(33_760);
    });
  });
});
