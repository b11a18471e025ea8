import loraPacket from 'lora-packet';
import type { RxPacket } from './packet-data';
import { toGatewayStatus, toUplinkMessage, uniqueByRssi } from './translation';
import { decodeUplinkToken } from '../../scheduling/uplink-token';

const frame = loraPacket
  .fromFields(
    { MType: 'Unconfirmed Data Up', DevAddr: Buffer.from('26011BDA', 'hex'), FCnt: 1, FPort: 1, payload: Buffer.from('hi') },
    Buffer.alloc(16, 2),
    Buffer.alloc(16, 3),
  )
  .getPHYPayload() as Buffer;
const gateway = { gateway_id: 'gtw-1', eui: 'AA555A0000000101' };
const rx = (over: Partial<RxPacket> = {}): RxPacket => ({
  tmst: 1000,
  frequency: 868100000,
  chan: 0,
  stat: 1,
  modulation: 'LORA',
  dataRate: { spreadingFactor: 9, bandwidth: 125000 },
  codingRate: '4/5',
  rssi: -80,
  lsnr: 7.5,
  payload: frame,
  ...over,
});

describe('rxpk → UplinkMessage (dataplane-notes §1.5)', () => {
  it('maps one antenna', () => {
    expect(
      toUplinkMessage(
        rx({ time: '2026-11-24T10:00:00.123456Z', tmms: 1_479_549_618_123, foff: -120 }),
        gateway,
        '2026-11-24T10:00:00.200000Z',
        'gs:uplink:01ABC',
      ),
    ).toEqual({
      raw_payload: frame.toString('base64'),
      settings: {
        data_rate: { lora: { spreading_factor: 9, bandwidth: 125000, coding_rate: '4/5' } },
        frequency: '868100000',
        timestamp: 1000,
        time: '2026-11-24T10:00:00.123456Z',
      },
      rx_metadata: [
        {
          gateway_ids: gateway,
          antenna_index: 0,
          uplink_token: expect.any(String),
          received_at: '2026-11-24T10:00:00.200000Z',
          time: '2026-11-24T10:00:00.123456Z',
          timestamp: 1000,
          // GPS time is 18 leap seconds ahead of UTC: 1479549618.123 s after 1980-01-06 is 10:00:00.123 UTC.
          gps_time: '2026-11-24T10:00:00.123000Z',
          rssi: -80,
          channel_rssi: -80,
          snr: 7.5,
          channel_index: 0,
          frequency_offset: '-120',
        },
      ],
      received_at: '2026-11-24T10:00:00.200000Z',
      crc_status: true,
      correlation_ids: ['gs:uplink:01ABC'],
    });
  });

  it('maps every antenna of rsig, FSK, and a failed CRC', () => {
    const msg = toUplinkMessage(
      rx({
        stat: -1,
        modulation: 'FSK',
        dataRate: { bitRate: 50000 },
        rsig: [
          { ant: 0, chan: 3, rssic: -70, rssis: -72, lsnr: 9, ftime: 42 },
          { ant: 1, chan: 3, rssic: -90 },
        ],
      }),
      gateway,
      '2026-11-24T10:00:00.000000Z',
      'gs:uplink:X',
    );
    expect(msg.settings.data_rate).toEqual({ fsk: { bit_rate: 50000 } });
    expect(msg.crc_status).toBe(false);
    expect(msg.rx_metadata).toEqual([
      {
        gateway_ids: gateway,
        antenna_index: 0,
        uplink_token: expect.any(String),
        received_at: '2026-11-24T10:00:00.000000Z',
        timestamp: 1000,
        rssi: -70,
        channel_rssi: -70,
        signal_rssi: -72,
        snr: 9,
        channel_index: 3,
        fine_timestamp: '42',
      },
      {
        gateway_ids: gateway,
        antenna_index: 1,
        uplink_token: expect.any(String),
        received_at: '2026-11-24T10:00:00.000000Z',
        timestamp: 1000,
        rssi: -90,
        channel_rssi: -90,
        channel_index: 3,
      },
    ]);
    // Each antenna's uplink token names the gateway, the antenna, the concentrator time and the server time of reception.
    expect(msg.rx_metadata.map((md) => decodeUplinkToken(md.uplink_token))).toEqual([
      { gateway_id: 'gtw-1', eui: 'AA555A0000000101', antenna_index: 0, timestamp: 1000, received_ms: Date.parse('2026-11-24T10:00:00.000Z') },
      { gateway_id: 'gtw-1', eui: 'AA555A0000000101', antenna_index: 1, timestamp: 1000, received_ms: Date.parse('2026-11-24T10:00:00.000Z') },
    ]);
    expect(decodeUplinkToken('not a token')).toBeUndefined();
    expect(decodeUplinkToken(Buffer.from('["g","aa",0,1,2]').toString('base64'))).toBeUndefined();
    expect(toUplinkMessage(rx({ stat: 0 }), gateway, '2026-11-24T10:00:00.000000Z', 'x').crc_status).toBeUndefined();
  });

  it('keeps the best-RSSI copy of a frame heard twice in one datagram', () => {
    const other = Buffer.from(frame);
    other[other.length - 1] ^= 1;
    const kept = uniqueByRssi([rx({ rssi: -90, chan: 1 }), rx({ rssi: -60, chan: 2 }), rx({ payload: other, rssi: -100 }), rx({ rssi: -70, chan: 3 })]);
    expect(kept.map((p) => [p.chan, p.rssi])).toEqual([
      [2, -60],
      [0, -100],
    ]);
  });
});

describe('stat → GatewayStatus', () => {
  it('names the counters as TTS and keeps a real location', () => {
    expect(
      toGatewayStatus({
        time: '2014-01-12T08:59:28.000000Z',
        lati: 46.24,
        long: 3.25,
        alti: 145.4,
        rxnb: 5,
        rxok: 4,
        rxfw: 3,
        ackr: 100,
        dwnb: 2,
        txnb: 1,
        temp: 40,
      }),
    ).toEqual({
      time: '2014-01-12T08:59:28.000000Z',
      antenna_locations: [{ latitude: 46.24, longitude: 3.25, altitude: 145, source: 'SOURCE_GPS' }],
      metrics: { rxin: 5, rxok: 4, rxfw: 3, ackr: 100, txin: 2, txok: 1, temp: 40 },
    });
  });

  it("drops the forwarders' placeholder locations (0,0) and (10,20)", () => {
    expect(toGatewayStatus({ lati: 0, long: 0 }).antenna_locations).toBeUndefined();
    expect(toGatewayStatus({ lati: 10, long: 20, alti: 0 }).antenna_locations).toBeUndefined();
  });
});
