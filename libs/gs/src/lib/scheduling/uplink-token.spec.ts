import { decodeUplinkToken, encodeUplinkToken, type UplinkToken } from './uplink-token';

describe('uplink token', () => {
  const token: UplinkToken = { gateway_id: 'gtw-1', eui: 'AA555A0000000001', antenna_index: 1, timestamp: 0xffffffff, received_ms: 1764000000123 };

  it('is the base64 of the JSON array of its fields, and reads back', () => {
    const encoded = encodeUplinkToken(token);
    expect(encoded).toBe(Buffer.from(JSON.stringify(['gtw-1', 'AA555A0000000001', 1, 0xffffffff, 1764000000123])).toString('base64'));
    expect(decodeUplinkToken(encoded)).toEqual(token);
  });

  it('is undefined for what is not one of ours', () => {
    expect(decodeUplinkToken(Buffer.from('["gtw-1","aa555a0000000001",0,1,2]').toString('base64'))).toBeUndefined();
    expect(decodeUplinkToken('not base64 json')).toBeUndefined();
  });
});
