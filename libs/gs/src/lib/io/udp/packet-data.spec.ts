import loraPacket from 'lora-packet';
import { isRxPacket, MAX_RXPK, parsePushData, parseTxAck, type RxPacket } from './packet-data';

/** A join-request built by lora-packet (an independent implementation), as a device sends it. */
const joinRequest = loraPacket
  .fromFields(
    {
      MType: 'Join Request',
      AppEUI: Buffer.from('70B3D57ED0000000', 'hex'),
      DevEUI: Buffer.from('70B3D57E01000001', 'hex'),
      DevNonce: Buffer.from('0102', 'hex'),
    },
    undefined,
    undefined,
    Buffer.alloc(16, 1),
  )
  .getPHYPayload() as Buffer;

const rxpk = (over: Record<string, unknown> = {}) => ({
  time: '2026-11-24T10:00:00.123456Z',
  tmst: 3512348611,
  chan: 2,
  rfch: 0,
  freq: 868.5,
  stat: 1,
  modu: 'LORA',
  datr: 'SF7BW125',
  codr: '4/5',
  rssi: -35,
  lsnr: 5.1,
  size: joinRequest.length,
  data: joinRequest.toString('base64'),
  ...over,
});
const body = (o: unknown) => Buffer.from(JSON.stringify(o));

describe('PUSH_DATA JSON', () => {
  it('reads an rxpk: Hz, data rate, signal, payload', () => {
    const parsed = parsePushData(body({ rxpk: [rxpk()] }));
    if ('error' in parsed) throw new Error(parsed.error);
    const [p] = parsed.rxpk as RxPacket[];
    expect(p).toMatchObject({
      time: '2026-11-24T10:00:00.123456Z',
      tmst: 3512348611,
      frequency: 868500000,
      chan: 2,
      stat: 1,
      modulation: 'LORA',
      dataRate: { spreadingFactor: 7, bandwidth: 125000 },
      codingRate: '4/5',
      rssi: -35,
      lsnr: 5.1,
    });
    expect(p.payload).toEqual(joinRequest);
    expect(loraPacket.fromWire(p.payload).getMType()).toBe('Join Request');
  });

  it('reads FSK, multi-antenna rsig and a trailing NUL; keeps frequencies exact (868.1 MHz → 868100000 Hz)', () => {
    const parsed = parsePushData(
      Buffer.concat([
        body({
          rxpk: [
            rxpk({
              modu: 'FSK',
              datr: 50000,
              codr: undefined,
              freq: 868.1,
              rsig: [
                { ant: 0, chan: 1, rssic: -40, lsnr: 7 },
                { ant: 1, chan: 1, rssic: -50 },
              ],
            }),
          ],
        }),
        Buffer.from([0]),
      ]),
    );
    if ('error' in parsed) throw new Error(parsed.error);
    expect(parsed.rxpk[0]).toMatchObject({
      frequency: 868100000,
      dataRate: { bitRate: 50000 },
      rsig: [
        { ant: 0, rssic: -40, lsnr: 7 },
        { ant: 1, rssic: -50 },
      ],
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['not base64', { data: 'not*base64' }, '`data` is not base64'],
    ['empty data', { data: '', size: 0 }, '`data` must hold 1 to 255 bytes'],
    ['a payload over 255 bytes', { data: Buffer.alloc(256).toString('base64'), size: 256 }, '`data` must hold 1 to 255 bytes'],
    ['a size that differs', { size: 3 }, 'differs from the 23 bytes'],
    ['an unknown modulation', { modu: 'LR-FHSS' }, '`modu` must be LORA or FSK'],
    ['a bad LoRa data rate', { datr: 'SF13BW125' }, '`datr` is not a LoRa data rate'],
    ['a bad bandwidth', { datr: 'SF7BW126' }, '`datr` is not a LoRa data rate'],
    ['a bad coding rate', { codr: '5/4' }, '`codr` is not a coding rate'],
    ['no tmst', { tmst: undefined }, '`tmst` is missing'],
    ['a tmst beyond 32 bits', { tmst: 2 ** 32 }, '`tmst` must be an integer'],
    ['a string frequency', { freq: '868.1' }, '`freq` must be a number'],
    ['no RSSI', { rssi: undefined }, '`rssi` is missing'],
    ['a bad CRC status', { stat: 2 }, '`stat` must be an integer'],
    ['rsig that is not a list of objects', { rsig: [1] }, '`rsig` must be at most 16 objects'],
  ])('drops an rxpk with %s, keeping the others', (_, over, error) => {
    const parsed = parsePushData(body({ rxpk: [rxpk(over), rxpk()] }));
    if ('error' in parsed) throw new Error(parsed.error);
    expect(parsed.rxpk[0]).toEqual({ error: expect.stringContaining(error) });
    expect(isRxPacket(parsed.rxpk[1])).toBe(true);
  });

  it('leaves out an unusable time rather than dropping the frame', () => {
    const parsed = parsePushData(body({ rxpk: [rxpk({ time: '2026-13-45T10:00:00Z' })] }));
    if ('error' in parsed) throw new Error(parsed.error);
    expect(isRxPacket(parsed.rxpk[0]) && parsed.rxpk[0].time).toBeUndefined();
  });

  it('refuses bodies that are not a JSON object, and bounds the rxpk per datagram', () => {
    for (const bad of ['', 'not json', '[]', '"x"', '{"rxpk":{}}']) expect(parsePushData(Buffer.from(bad))).toHaveProperty('error');
    const parsed = parsePushData(body({ rxpk: Array.from({ length: MAX_RXPK + 10 }, () => rxpk()) }));
    expect('rxpk' in parsed && parsed.rxpk).toHaveLength(MAX_RXPK);
    expect(parsed).toHaveProperty('truncated', 10);
    expect(parsePushData(body({ rxpk: ['x', null] }))).toEqual({
      rxpk: [{ error: '`rxpk` item is not an object' }, { error: '`rxpk` item is not an object' }],
      truncated: 0,
      stat: undefined,
    });
  });

  it('reads stat, leaving out fields that are not what they should be', () => {
    const parsed = parsePushData(
      body({
        stat: {
          time: '2014-01-12 08:59:28 GMT',
          lati: 46.24,
          long: 3.2523,
          alti: 145,
          rxnb: 2,
          rxok: 2,
          rxfw: 2,
          ackr: 100,
          dwnb: 2,
          txnb: 2,
          temp: 'hot',
          extra: 1,
        },
      }),
    );
    expect(parsed).toEqual({
      rxpk: [],
      truncated: 0,
      stat: { time: '2014-01-12T08:59:28.000000Z', lati: 46.24, long: 3.2523, alti: 145, rxnb: 2, rxok: 2, rxfw: 2, ackr: 100, dwnb: 2, txnb: 2 },
    });
  });
});

describe('TX_ACK JSON', () => {
  it('is success without a body, without txpk_ack or with error NONE', () => {
    for (const b of ['', '{}', '{"txpk_ack":{}}', '{"txpk_ack":{"error":"NONE"}}', '{"txpk_ack":{"error":""}}'])
      expect(parseTxAck(Buffer.from(b))).toBe('SUCCESS');
    expect(parseTxAck(Buffer.from([0]))).toBe('SUCCESS');
  });

  it('names the error, unknown errors and garbage as UNKNOWN_ERROR', () => {
    for (const e of ['TOO_LATE', 'TOO_EARLY', 'COLLISION_PACKET', 'COLLISION_BEACON', 'TX_FREQ', 'TX_POWER', 'GPS_UNLOCKED'])
      expect(parseTxAck(Buffer.from(JSON.stringify({ txpk_ack: { error: e } })))).toBe(e);
    for (const b of ['{"txpk_ack":{"error":"MELTED"}}', '{"txpk_ack":1}', 'garbage', '[]']) expect(parseTxAck(Buffer.from(b))).toBe('UNKNOWN_ERROR');
  });
});
