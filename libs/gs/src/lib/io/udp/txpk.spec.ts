import loraPacket from 'lora-packet';
import { classATimestamp } from '../../scheduling/class-a-downlink';
import { toTxpk } from './txpk';

const joinAccept = loraPacket
  .fromFields(
    { MType: 'Join Accept', AppNonce: Buffer.from('000001', 'hex'), NetID: Buffer.from('000013', 'hex'), DevAddr: Buffer.from('260B1234', 'hex') },
    undefined,
    undefined,
    Buffer.alloc(16, 7),
  )
  .getPHYPayload() as Buffer;

describe('txpk (dataplane-notes §1.3)', () => {
  it('a class A join-accept in RX1 on EU868: MHz, ERP from EIRP, LoRa rate, inverted polarity, no CRC, the tmst of the window', () => {
    expect(
      toTxpk({
        payload: joinAccept,
        frequency: '868100000',
        data_rate: { lora: { spreading_factor: 7, bandwidth: 125000 } },
        eirp: 16.15,
        timestamp: classATimestamp(3_512_348_611, 5),
      }),
    ).toEqual({
      tmst: 3_517_348_611,
      freq: 868.1,
      rfch: 0,
      powe: 14,
      modu: 'LORA',
      datr: 'SF7BW125',
      codr: '4/5',
      ipol: true,
      ncrc: true,
      size: joinAccept.length,
      data: joinAccept.toString('base64'),
    });
  });

  it('RX2 at 869.525 MHz with 27 dBm ERP, US915 500 kHz, FSK, GPS time and immediate sending; the antenna gain comes off', () => {
    const base = { payload: joinAccept, eirp: 29.15, data_rate: { lora: { spreading_factor: 9, bandwidth: 125000 } } };
    expect(toTxpk({ ...base, frequency: 869525000, timestamp: 1 })).toMatchObject({ freq: 869.525, powe: 27, datr: 'SF9BW125' });
    expect(toTxpk({ ...base, frequency: 869525000, timestamp: 1, antenna_gain: 3 })).toMatchObject({ powe: 24 });
    expect(toTxpk({ ...base, frequency: 923300000, eirp: 28.15, data_rate: { lora: { spreading_factor: 12, bandwidth: 500000 } } })).toMatchObject({
      imme: true,
      freq: 923.3,
      powe: 26,
      datr: 'SF12BW500',
    });
    expect(toTxpk({ ...base, frequency: 868800000, data_rate: { fsk: { bit_rate: 50000 } }, gps_time_ms: 1_300_000_000_000 })).toEqual(
      expect.objectContaining({ tmms: 1_300_000_000_000, modu: 'FSK', datr: 50000, fdev: 25000, ncrc: true }),
    );
  });

  it('wraps the concentrator counter at 2^32 µs (~71.6 min)', () => {
    expect(classATimestamp(0xffffffff - 999_999, 1)).toBe(0);
    expect(classATimestamp(0xfffff000, 6)).toBe((0xfffff000 + 6_000_000) % 2 ** 32);
  });

  it('refuses an empty or oversized payload and a missing frequency', () => {
    const rate = { lora: { spreading_factor: 7, bandwidth: 125000 } };
    expect(() => toTxpk({ payload: Buffer.alloc(0), frequency: 868100000, data_rate: rate, eirp: 16 })).toThrow('1 to 255 bytes');
    expect(() => toTxpk({ payload: Buffer.alloc(256), frequency: 868100000, data_rate: rate, eirp: 16 })).toThrow('1 to 255 bytes');
    expect(() => toTxpk({ payload: joinAccept, frequency: 'x', data_rate: rate, eirp: 16 })).toThrow('frequency');
  });
});
