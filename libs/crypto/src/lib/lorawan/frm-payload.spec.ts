import { decryptFrmPayload, encryptFrmPayload } from './frm-payload';

const K1 = '01010101010101010101010101010101';
const hex = (s: string) => Buffer.from(s, 'hex');

describe('encryptFrmPayload (dataplane notes §7)', () => {
  it('D1: uplink and downlink with K1, DevAddr 01020304, FCnt 1', () => {
    expect(encryptFrmPayload(K1, '01020304', 1, true, hex('01020304')).toString('hex').toUpperCase()).toBe('CFF30B4E');
    expect(encryptFrmPayload(hex(K1), '01020304', 1, false, hex('01020304')).toString('hex').toUpperCase()).toBe('4E75F440');
  });

  it('U1/U2: decrypts real uplinks (AppSKey EC92…, DevAddr 49BE7DF1)', () => {
    const appSKey = 'EC925802AE430CA77FD3DD73CB2CC588';
    // U1: FCnt 2, FRMPayload 954378 76 of `40F17DBE4900020001954378762B11FF0D`.
    expect(decryptFrmPayload(appSKey, '49BE7DF1', 2, true, hex('95437876')).toString()).toBe('test');
    // U2: FCnt 4, multi-block payload.
    const frame = hex('40f17dbe490004000155332de41a11adc072553544429ce7787707d1c316e027e7e5e334263376affb8aa17ad30075293f28dea8a20af3c5e7');
    const frm = frame.subarray(9, frame.length - 4);
    expect(decryptFrmPayload(appSKey, '49BE7DF1', 4, true, frm).toString()).toBe('The quick brown fox jumps over the lazy dog.');
  });

  it('round-trips, keeps the length, handles the empty payload and 32-bit counters', () => {
    const plain = Buffer.from('0102030405060708090a0b0c0d0e0f101112', 'hex');
    const enc = encryptFrmPayload(K1, '26011BDA', 0x00010001, false, plain);
    expect(enc).toHaveLength(plain.length);
    expect(enc.equals(plain)).toBe(false);
    expect(decryptFrmPayload(K1, '26011BDA', 0x00010001, false, enc).equals(plain)).toBe(true);
    expect(encryptFrmPayload(K1, '26011BDA', 1, false, new Uint8Array())).toHaveLength(0);
    expect(encryptFrmPayload(K1, '26011BDA', 0x10001, false, plain).equals(encryptFrmPayload(K1, '26011BDA', 1, false, plain))).toBe(false);
  });

  it('rejects bad keys, addresses and counters', () => {
    expect(() => encryptFrmPayload('0102', '01020304', 1, true, hex('01'))).toThrow('16 bytes');
    expect(() => encryptFrmPayload(K1, '0102', 1, true, hex('01'))).toThrow('DevAddr');
    expect(() => encryptFrmPayload(K1, '01020304', -1, true, hex('01'))).toThrow('FCnt');
  });
});
