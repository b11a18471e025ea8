import { randomBytes } from 'node:crypto';
import loraPacket from 'lora-packet';
import { aesCmac } from './aes';
import { computeDownlinkMic, computeLegacyDownlinkMic, computeLegacyUplinkMic, computeUplinkMic, encryptFOpts } from './data-messages';
import { computeJoinAcceptMic, computeJoinRequestMic, computeLegacyJoinAcceptMic, decryptJoinAccept, encryptJoinAccept } from './join-messages';
import { deriveJsEncKey, deriveJsIntKey, deriveLegacySessionKeys, deriveSessionKeys11 } from './key-derivation';

/** Known answers of dataplane-notes §7 (TTS's crypto tests, RFC 4493, lora-packet's test frames), and lora-packet as a second implementation. */
const K1 = '01010101010101010101010101010101';
const hex = (s: string) => Buffer.from(s.replace(/\s/g, ''), 'hex');
const up = (b: Buffer | undefined) => (b ?? Buffer.alloc(0)).toString('hex').toUpperCase();

describe('AES-CMAC (RFC 4493)', () => {
  const key = '2b7e151628aed2a6abf7158809cf4f3c';
  it.each([
    ['', 'bb1d6929e95937287fa37d129b756746'],
    ['6bc1bee22e409f96e93d7e117393172a', '070a16b46b4d4144f79bdd9dd04a287c'],
    ['6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411', 'dfa66747de9ae63030ca32611497c827'],
    [
      '6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710',
      '51f0bebf7e3b9d92fc49741779363cfe',
    ],
  ])('example %#', (message, mac) => {
    expect(aesCmac(key, hex(message)).toString('hex')).toBe(mac);
  });
});

describe('join messages (§7 J1–J4, JR, JA)', () => {
  it('J1: join-request MIC', () => {
    expect(up(computeJoinRequestMic(K1, hex('00 0807060504030201 0807060504030201 0201')))).toBe('E6E10C55');
  });

  it('J2: legacy join-accept MIC', () => {
    expect(up(computeLegacyJoinAcceptMic(K1, hex('20 030201 030201 04030201 00 01')))).toBe('32F54AB3');
  });

  it('J3: join-accept encryption is AES decryption, and decryption undoes it', () => {
    const plain = hex('030201 030201 04030201 00 01 32F54AB3');
    expect(up(encryptJoinAccept(K1, plain))).toBe('C9FBB259E11649096A568A9E3B7117C3');
    expect(up(decryptJoinAccept(K1, hex('C9FBB259E11649096A568A9E3B7117C3')))).toBe(up(plain));
  });

  it('J4: 1.1 join-accept MIC with JSIntKey, JoinReqType FF, JoinEUI and DevNonce', () => {
    expect(up(computeJoinAcceptMic(K1, 0xff, '0807060504030201', '0201', hex('20 030201 030201 04030201 00 01')))).toBe('48E9BE5F');
  });

  it('JR/JA: real frames, and lora-packet agrees', () => {
    const appKey = '98929B92C49EDBA9676D646D3B612456';
    const jr = hex('0039363463336913AA05693574323831330489C65B1304');
    expect(up(computeJoinRequestMic(appKey, jr.subarray(0, 19)))).toBe('C65B1304');
    expect(up(loraPacket.fromWire(jr).getBuffers().MIC)).toBe('C65B1304');
    const ja = hex('20386337CCBBAAE7CD2C010000D9D0A6E7');
    expect(up(computeLegacyJoinAcceptMic(appKey, ja.subarray(0, 13)))).toBe('D9D0A6E7');
    // Encrypted as a JS sends it, lora-packet decrypts it and checks the MIC.
    const onAir = Buffer.concat([ja.subarray(0, 1), encryptJoinAccept(appKey, ja.subarray(1))]);
    const decrypted = loraPacket.fromWire(loraPacket.decryptJoinAccept(loraPacket.fromWire(onAir), hex(appKey)));
    expect(up(decrypted.getBuffers().DevAddr)).toBe('012CCDE7');
    expect(loraPacket.verifyMIC(decrypted, undefined, hex(appKey))).toBe(true);
  });
});

describe('session keys (§7 key derivation, KG)', () => {
  const root = 'BEC499C69E9C939E413B663961636C61';
  it('1.0.x', () => {
    expect(deriveLegacySessionKeys(root, 'AE3B1C', '020101', '7369')).toEqual({
      nwk_s_key: '0DB924EE6AF90698E05FC7CE48303C01',
      app_s_key: '8C1E0543A229088DE6F84E74BB46BD62',
    });
    expect(deriveLegacySessionKeys('98929B92C49EDBA9676D646D3B612456', '376338', 'AABBCC', 'F18E')).toEqual({
      nwk_s_key: '4E3D6E6AFBCC67AF2BA3C8E8EC4ACF4B',
      app_s_key: '610897AA6F1460623443B527D3AC6A9D',
    });
  });

  it('1.1, and the JS keys', () => {
    expect(deriveSessionKeys11(root, root, 'AE3B1C', '0000001223224242', '7369')).toEqual({
      f_nwk_s_int_key: '379084E7CE22FF191BFF4B77536F2AA3',
      s_nwk_s_int_key: '63C59309D53485BC5164DBF71627AEB9',
      nwk_s_enc_key: 'CE07A009A3970AC0519A099ED53E550B',
      app_s_key: 'B035CCE24E4A040EB5CECBF21724412D',
    });
    expect(deriveJsIntKey(root, '0042004213424341')).toBe('CB8E9EE114C3FB5CE472A5AA13AB1855');
    expect(deriveJsEncKey(root, '0042004213424341')).toBe('BB711EEFB9829B4A75866F8616BACD6D');
  });

  it('match lora-packet for random inputs', () => {
    for (let i = 0; i < 50; i++) {
      const [appKey, nwkKey] = [randomBytes(16), randomBytes(16)];
      const [joinNonce, netId, devNonce, joinEui] = [randomBytes(3), randomBytes(3), randomBytes(2), randomBytes(8)];
      const ours10 = deriveLegacySessionKeys(appKey, up(joinNonce), up(netId), up(devNonce));
      const theirs10 = loraPacket.generateSessionKeys10(appKey, netId, joinNonce, devNonce);
      expect([ours10.nwk_s_key, ours10.app_s_key]).toEqual([up(theirs10.NwkSKey), up(theirs10.AppSKey)]);
      const ours11 = deriveSessionKeys11(nwkKey, appKey, up(joinNonce), up(joinEui), up(devNonce));
      const theirs11 = loraPacket.generateSessionKeys11(appKey, nwkKey, joinEui, joinNonce, devNonce);
      expect(ours11).toEqual({
        f_nwk_s_int_key: up(theirs11.FNwkSIntKey),
        s_nwk_s_int_key: up(theirs11.SNwkSIntKey),
        nwk_s_enc_key: up(theirs11.NwkSEncKey),
        app_s_key: up(theirs11.AppSKey),
      });
    }
  });
});

describe('data messages (§7 D2–D5, U1, U3, U4)', () => {
  const msg = hex('40 04030201 00 0100 01 01020304');
  it('D3/D5: legacy uplink and downlink MICs', () => {
    expect(up(computeLegacyUplinkMic(K1, '01020304', 1, msg))).toBe('3B073182');
    expect(up(computeLegacyDownlinkMic(K1, '01020304', 1, msg))).toBe('A5609FA9');
  });

  it('D4: 1.1 uplink MIC', () => {
    expect(up(computeUplinkMic(K1, K1, 0, 0, 0, '01020304', 1, msg))).toBe('3B073B07');
  });

  it('D2: 1.1 FOpts encryption, both directions', () => {
    expect(up(encryptFOpts(K1, '01020304', 1, true, hex('01020304')))).toBe('23615F18');
    expect(up(encryptFOpts(K1, '01020304', 1, false, hex('01020304')))).toBe('B2DBE391');
  });

  it('U1/U3/U4: real frames', () => {
    const nwkSKey = '44024241ED4CE9A68C6A8BC055233FD3';
    const u1 = hex('40F17DBE4900020001954378762B11FF0D');
    expect(up(computeLegacyUplinkMic(nwkSKey, '49BE7DF1', 2, u1.subarray(0, u1.length - 4)))).toBe('2B11FF0D');
    const u3 = hex('60f17dbe4920020001f9d65d27');
    expect(up(computeLegacyDownlinkMic(nwkSKey, '49BE7DF1', 2, u3.subarray(0, u3.length - 4)))).toBe('F9D65D27');
    const u4 = hex('40F17DBE49000300012A3518AF');
    expect(up(computeLegacyUplinkMic(nwkSKey, '49BE7DF1', 3, u4.subarray(0, u4.length - 4)))).toBe('2A3518AF');
  });

  it('legacy MICs match lora-packet for random frames, 32-bit FCnts included', () => {
    for (let i = 0; i < 50; i++) {
      const nwkSKey = randomBytes(16);
      const appSKey = randomBytes(16);
      const devAddr = randomBytes(4);
      const fCnt = i % 2 ? (0x10000 + i) >>> 0 : i;
      const packet = loraPacket.fromFields(
        {
          MType: i % 3 ? 'Unconfirmed Data Up' : 'Unconfirmed Data Down',
          DevAddr: devAddr,
          FCnt: fCnt & 0xffff,
          FPort: 1 + (i % 200),
          payload: randomBytes(i),
        },
        appSKey,
        nwkSKey,
        undefined,
        // The upper 16 bits of FCnt, as B0 holds them (little-endian).
        Buffer.from([(fCnt >>> 16) & 0xff, (fCnt >>> 24) & 0xff]),
      );
      const wire = packet.getPHYPayload() ?? Buffer.alloc(0);
      const body = wire.subarray(0, wire.length - 4);
      const mic =
        packet.getDir() === 'up' ? computeLegacyUplinkMic(nwkSKey, up(devAddr), fCnt, body) : computeLegacyDownlinkMic(nwkSKey, up(devAddr), fCnt, body);
      expect(up(mic)).toBe(up(packet.getBuffers().MIC));
    }
  });

  it('1.1 downlink MIC: the legacy one when no uplink is acknowledged, else over ConfFCnt', () => {
    expect(computeDownlinkMic(K1, 0, '01020304', 1, msg)).toEqual(computeLegacyDownlinkMic(K1, '01020304', 1, msg));
    expect(computeDownlinkMic(K1, 7, '01020304', 1, msg)).not.toEqual(computeLegacyDownlinkMic(K1, '01020304', 1, msg));
  });

  it('refuses malformed inputs', () => {
    expect(() => computeJoinRequestMic(K1, hex('00'))).toThrow('19 bytes');
    expect(() => computeLegacyJoinAcceptMic(K1, hex('20'))).toThrow('13 or 29');
    expect(() => computeLegacyUplinkMic(K1, '0102', 1, msg)).toThrow('DevAddr');
    expect(() => computeLegacyUplinkMic(K1, '01020304', 2 ** 32, msg)).toThrow('FCnt');
    expect(() => computeLegacyUplinkMic('0102', '01020304', 1, msg)).toThrow('16 bytes');
    expect(() => deriveLegacySessionKeys(K1, 'zz3B1C', '020101', '7369')).toThrow('JoinNonce');
    expect(() => encryptFOpts(K1, '01020304', 1, true, Buffer.alloc(16))).toThrow('15 bytes');
  });
});
