import loraPacket from 'lora-packet';
import { stationFrameFields } from '@lorawan/testing';
import { decodeUplinkToken } from '../../scheduling/uplink-token';
import { toUplinkMessage as udpUplinkMessage } from '../udp/translation';
import { stringifyStationJson } from './json';
import { parseUpstream } from './messages';
import { type ReceivedFrame, toUplinkMessage } from './uplink';

const gateway = { gateway_id: 'gtw-lbs', eui: 'B827EBFFFE6151D9' };
const APP_KEY = Buffer.from('00112233445566778899AABBCCDDEEFF', 'hex');
const NWK_S_KEY = Buffer.from('44024241ED4CE9A68C6A8BC055233FD3', 'hex');
const APP_S_KEY = Buffer.from('EC925802AE430CA77FD3DD73CB2CC588', 'hex');
/** Session 0x2A on radio unit 0, 4 000 000 123 µs since the concentrator started (past one 32-bit wrap). */
const XTIME = (0x2an << 48n) | 4_000_000_123n;
const upinfo = { rctx: 0, xtime: XTIME, gpstime: 1479549618123456n, rssi: -97, snr: 7.25, rxtime: 1764320000.25 };

/** A frame as the test station (split by lora-packet as station's lora.c does) sends it at `radio`. */
const asStation = (phy: Buffer, radio: Record<string, unknown>): string => stringifyStationJson({ ...stationFrameFields(phy), ...radio });

const received = (text: string) => parseUpstream(text) as ReceivedFrame;

/** The UplinkMessage of a frame station received in EU868 at `radio`, and its rebuilt PHYPayload. */
function translated(phy: Buffer, radio: Record<string, unknown>) {
  const up = toUplinkMessage(received(asStation(phy, radio)), 'EU_863_870', gateway, '2025-11-28T09:00:00.500000Z', 'gs:uplink:01J');
  if ('error' in up) throw new Error(up.error);
  return { up, rebuilt: Buffer.from(up.raw_payload, 'base64') };
}

describe('jreq / updf → UplinkMessage (the UDP frontend`s shape)', () => {
  it('a device`s join-request: the PHYPayload rebuilt byte for byte, its MIC still valid under the AppKey', () => {
    const join = loraPacket
      .fromFields(
        {
          MType: 'Join Request',
          AppEUI: Buffer.from('70B3D57ED0000001', 'hex'),
          DevEUI: Buffer.from('0004A30B001C0530', 'hex'),
          DevNonce: Buffer.from('BEEF', 'hex'),
        },
        undefined,
        undefined,
        APP_KEY,
      )
      .getPHYPayload() as Buffer;
    const { rebuilt } = translated(join, { DR: 5, Freq: 868100000, upinfo });
    expect(rebuilt).toEqual(join);
    expect(loraPacket.verifyMIC(loraPacket.fromWire(rebuilt), undefined, APP_KEY)).toBe(true);
  });

  it('a confirmed data uplink with ADR, FOpts and FRMPayload: rebuilt byte for byte, MIC valid under the NwkSKey', () => {
    const data = loraPacket
      .fromFields(
        {
          MType: 'Confirmed Data Up',
          DevAddr: Buffer.from('E6011BDA', 'hex'),
          FCnt: 40000,
          FCtrl: { ADR: true, ACK: true },
          FOpts: Buffer.from('0207', 'hex'),
          FPort: 42,
          payload: Buffer.from('hello station'),
        },
        APP_S_KEY,
        NWK_S_KEY,
      )
      .getPHYPayload() as Buffer;
    const { up, rebuilt } = translated(data, { DR: 0, Freq: 867100000, upinfo });
    expect(rebuilt).toEqual(data);
    expect(loraPacket.verifyMIC(loraPacket.fromWire(rebuilt), NWK_S_KEY)).toBe(true);
    expect(up.settings).toEqual({
      data_rate: { lora: { spreading_factor: 12, bandwidth: 125000, coding_rate: '4/5' } },
      frequency: '867100000',
      // xtime's low 32 bits: 4 000 000 123 µs.
      timestamp: 4_000_000_123,
      time: '2026-11-24T10:00:00.123456Z',
    });
  });

  it('the same copy over UDP and over Basics Station gives the same UplinkMessage (but the channel index station does not report)', () => {
    const phy = loraPacket
      .fromFields(
        { MType: 'Unconfirmed Data Up', DevAddr: Buffer.from('26011BDA', 'hex'), FCnt: 1, FPort: 1, payload: Buffer.from('hi') },
        APP_S_KEY,
        NWK_S_KEY,
      )
      .getPHYPayload() as Buffer;
    const receivedAt = '2026-11-24T10:00:00.200000Z';
    const lbs = toUplinkMessage(
      received(asStation(phy, { DR: 3, Freq: 868300000, upinfo: { ...upinfo, gpstime: 1_479_549_618_123_000n } })),
      'EU_863_870',
      gateway,
      receivedAt,
      'gs:uplink:01K',
    );
    const udp = udpUplinkMessage(
      {
        time: '2026-11-24T10:00:00.123000Z',
        tmms: 1_479_549_618_123,
        tmst: 4_000_000_123,
        frequency: 868300000,
        chan: 1,
        stat: 1,
        modulation: 'LORA',
        dataRate: { spreadingFactor: 9, bandwidth: 125000 },
        codingRate: '4/5',
        rssi: -97,
        lsnr: 7.25,
        payload: phy,
      },
      gateway,
      receivedAt,
      'gs:uplink:01K',
    );
    const { channel_index, ...udpMetadata } = udp.rx_metadata[0];
    expect(channel_index).toBe(1);
    expect(lbs).toEqual({ ...udp, rx_metadata: [udpMetadata] });
    expect(lbs).toHaveProperty('crc_status', true);
  });

  it('rx metadata: the receiving radio as antenna, GPS time, and an uplink token naming gateway, antenna and timestamp', () => {
    const phy = Buffer.from('40DA1B0126000100016869AABBCCDD', 'hex');
    const up = toUplinkMessage(
      received(asStation(phy, { DR: 5, Freq: 868100000, upinfo: { ...upinfo, rctx: 1, fts: 12345 } })),
      'EU_863_870',
      gateway,
      '2026-11-24T10:00:00.200000Z',
      'gs:uplink:01L',
    );
    if ('error' in up) throw new Error(up.error);
    expect(up.rx_metadata).toEqual([
      {
        gateway_ids: gateway,
        antenna_index: 1,
        time: '2026-11-24T10:00:00.123456Z',
        gps_time: '2026-11-24T10:00:00.123456Z',
        fine_timestamp: '12345',
        timestamp: 4_000_000_123,
        rssi: -97,
        channel_rssi: -97,
        snr: 7.25,
        uplink_token: expect.any(String),
        received_at: '2026-11-24T10:00:00.200000Z',
      },
    ]);
    expect(decodeUplinkToken(up.rx_metadata[0].uplink_token)).toEqual({
      gateway_id: 'gtw-lbs',
      eui: 'B827EBFFFE6151D9',
      antenna_index: 1,
      timestamp: 4_000_000_123,
      received_ms: Date.parse('2026-11-24T10:00:00.200Z'),
    });
  });

  it('without GPS the time is the gateway`s rxtime; an FSK uplink; a DR the band lacks is refused', () => {
    const phy = Buffer.from('40DA1B0126000100016869AABBCCDD', 'hex');
    const noGps = { rctx: 0, xtime: XTIME, rssi: -50, snr: 9, rxtime: 1764320000.25 };
    const fsk = toUplinkMessage(received(asStation(phy, { DR: 7, Freq: 868800000, upinfo: noGps })), 'EU_863_870', gateway, '2025-11-28T09:00:00Z', 'c');
    expect(fsk).toMatchObject({ settings: { data_rate: { fsk: { bit_rate: 50000 } }, time: '2025-11-28T08:53:20.250000Z' } });
    expect((fsk as { rx_metadata: object[] }).rx_metadata[0]).not.toHaveProperty('gps_time');
    expect(toUplinkMessage(received(asStation(phy, { DR: 7, Freq: 903900000, upinfo: noGps })), 'US_902_928', gateway, '2025-11-28T09:00:00Z', 'c')).toEqual({
      error: 'DR7 is not a data rate of US_902_928',
    });
  });
});
