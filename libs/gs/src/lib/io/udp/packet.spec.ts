import { ackFor, PacketType, parseUpstream, pullResp } from './packet';

const EUI = 'AA555A0000000101';
const datagram = (version: number, token: number, type: number, eui?: string, body = '') =>
  Buffer.concat([Buffer.from([version, token >> 8, token & 0xff, type]), eui ? Buffer.from(eui, 'hex') : Buffer.alloc(0), Buffer.from(body)]);

describe('GWMP datagrams (PROTOCOL.TXT)', () => {
  it('parses PUSH_DATA, PULL_DATA and TX_ACK of v1 and v2 with token, EUI and body', () => {
    expect(parseUpstream(datagram(2, 0xbeef, 0x00, EUI, '{"rxpk":[]}'))).toEqual({
      version: 2,
      token: 0xbeef,
      type: PacketType.PushData,
      gatewayEui: EUI,
      body: Buffer.from('{"rxpk":[]}'),
    });
    expect(parseUpstream(datagram(1, 7, 0x02, EUI.toLowerCase()))).toMatchObject({ version: 1, token: 7, type: PacketType.PullData, gatewayEui: EUI });
    expect(parseUpstream(datagram(2, 9, 0x05, EUI))).toMatchObject({ type: PacketType.TxAck, body: Buffer.alloc(0) });
  });

  it('drops what is not an upstream datagram, with the reason', () => {
    expect(parseUpstream(Buffer.alloc(0))).toBe('too_short');
    expect(parseUpstream(Buffer.from([2, 0, 1]))).toBe('too_short');
    expect(parseUpstream(datagram(3, 1, 0x00, EUI))).toBe('unsupported_version');
    expect(parseUpstream(datagram(0, 1, 0x00, EUI))).toBe('unsupported_version');
    for (const type of [0x01, 0x03, 0x04, 0x06, 0xff]) expect(parseUpstream(datagram(2, 1, type, EUI))).toBe('unexpected_identifier');
    expect(parseUpstream(datagram(2, 1, 0x02))).toBe('no_gateway_eui');
    expect(parseUpstream(datagram(2, 1, 0x00, 'AA555A00'))).toBe('no_gateway_eui');
  });

  it('acks PUSH_DATA with PUSH_ACK and PULL_DATA with PULL_ACK, same version and token; TX_ACK gets none', () => {
    const push = parseUpstream(datagram(2, 0x1234, 0x00, EUI, '{}'));
    const pull = parseUpstream(datagram(1, 0xabcd, 0x02, EUI));
    const txAck = parseUpstream(datagram(2, 5, 0x05, EUI));
    if (typeof push === 'string' || typeof pull === 'string' || typeof txAck === 'string') throw new Error('not parsed');
    expect(ackFor(push)).toEqual(Buffer.from([2, 0x12, 0x34, 0x01]));
    expect(ackFor(pull)).toEqual(Buffer.from([1, 0xab, 0xcd, 0x04]));
    expect(ackFor(txAck)).toBeUndefined();
  });

  it('writes PULL_RESP with the txpk; v1 has no token', () => {
    const v2 = pullResp(2, 0x0102, { imme: false, tmst: 1 });
    expect(v2.subarray(0, 4)).toEqual(Buffer.from([2, 1, 2, 0x03]));
    expect(JSON.parse(v2.subarray(4).toString())).toEqual({ txpk: { imme: false, tmst: 1 } });
    expect(pullResp(1, 0x0102, {}).subarray(0, 4)).toEqual(Buffer.from([1, 0, 0, 0x03]));
  });
});
