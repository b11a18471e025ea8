import loraPacket from 'lora-packet';
import { encryptJoinAcceptBody, loraJoinAccept } from './lora-join-accept';
import { OTAA_MAC_VERSIONS, type OtaaMacVersion, SimulatedOtaaDevice } from './otaa-device';

/**
 * Known answers from dataplane-notes §7 (TTS's crypto tests and lora-packet's test frames) through
 * the simulator's own code paths; round trips against a network side laid out and signed by
 * lora-packet and encrypted with node:crypto.
 */
const H = (s: string) => Buffer.from(s, 'hex');
const hex = (b: Buffer) => b.toString('hex').toUpperCase();

describe('SimulatedOtaaDevice: known answers', () => {
  it('J1, JR: the join-request and its MIC', () => {
    // J1 (TTS): JoinEUI and DevEUI 0102030405060708 (0807060504030201 on air), DevNonce 0102, key 0101…
    const j1 = new SimulatedOtaaDevice({ joinEui: '0102030405060708', devEui: '0102030405060708', appKey: '01'.repeat(16), macVersion: 'MAC_V1_0_3' });
    expect(hex(j1.joinRequest(0x0102))).toBe('00' + '0807060504030201' + '0807060504030201' + '0201' + 'E6E10C55');
    // JR (lora-packet's test frame).
    const jr = new SimulatedOtaaDevice({
      joinEui: 'AA13693363343639',
      devEui: '3331383274356905',
      appKey: '98929B92C49EDBA9676D646D3B612456',
      macVersion: 'MAC_V1_0_2',
    });
    expect(hex(jr.joinRequest(0x8904))).toBe('0039363463336913AA05693574323831330489C65B1304');
  });

  it('1.1: the join-request is signed with the NwkKey, not the AppKey', () => {
    const o = { joinEui: '0102030405060708', devEui: '0102030405060708', macVersion: 'MAC_V1_1' as const };
    const frame = new SimulatedOtaaDevice({ ...o, appKey: '02'.repeat(16), nwkKey: '01'.repeat(16) }).joinRequest(0x0102);
    expect(hex(frame.subarray(19))).toBe('E6E10C55');
  });

  it('J3: the network side encrypts a join-accept as TTS does', () => {
    expect(hex(encryptJoinAcceptBody(Buffer.alloc(16, 1), H('030201030201040302010001' + '32F54AB3')))).toBe('C9FBB259E11649096A568A9E3B7117C3');
  });

  it('JA + KG (1.0): decrypts the join-accept, checks its MIC and derives the session keys', () => {
    const appKey = '98929B92C49EDBA9676D646D3B612456';
    const device = new SimulatedOtaaDevice({ joinEui: 'AA13693363343639', devEui: '3331383274356905', appKey, macVersion: 'MAC_V1_0_2' });
    device.joinRequest(0xf18e);
    // JA: the plain join-accept with its MIC D9D0A6E7, encrypted as a JS sends it.
    const plain = H('20386337CCBBAAE7CD2C010000D9D0A6E7');
    const onAir = Buffer.concat([plain.subarray(0, 1), encryptJoinAcceptBody(H(appKey), plain.subarray(1))]);
    expect(device.acceptJoin(onAir)).toEqual({
      devAddr: '012CCDE7',
      netId: 'AABBCC',
      joinNonce: '376338',
      devNonce: 'F18E',
      dlSettings: { optNeg: false, rx1DrOffset: 0, rx2Dr: 0 },
      rxDelay: 0,
      // KG: NetID AABBCC, AppNonce 376338, DevNonce F18E.
      keys: { nwkSKey: '4E3D6E6AFBCC67AF2BA3C8E8EC4ACF4B', appSKey: '610897AA6F1460623443B527D3AC6A9D' },
    });
  });

  it('KG (1.1, OptNeg): the JSIntKey MIC over JoinReqType | JoinEUI | DevNonce, and the four 1.1 session keys', () => {
    // TTS key_derivation_test.go inputs; the join-accept's MIC was computed with the known JSIntKey
    // CB8E9EE114C3FB5CE472A5AA13AB1855 by an RFC 4493 CMAC over node:crypto (030682C3; lora-packet and
    // TTS's formula agree), then encrypted with the NwkKey.
    const root = 'BEC499C69E9C939E413B663961636C61';
    const device = new SimulatedOtaaDevice({ joinEui: '0000001223224242', devEui: '0042004213424341', appKey: root, nwkKey: root, macVersion: 'MAC_V1_1' });
    device.joinRequest(0x7369);
    const accepted = device.acceptJoin(H('20660ECB51004773E1DB02C407E48814C1'));
    expect(accepted).toMatchObject({ devAddr: '260B1234', netId: '020101', joinNonce: 'AE3B1C', devNonce: '7369', rxDelay: 5 });
    expect(accepted.dlSettings).toEqual({ optNeg: true, rx1DrOffset: 0, rx2Dr: 0 });
    expect(accepted.keys).toEqual({
      fNwkSIntKey: '379084E7CE22FF191BFF4B77536F2AA3',
      sNwkSIntKey: '63C59309D53485BC5164DBF71627AEB9',
      nwkSEncKey: 'CE07A009A3970AC0519A099ED53E550B',
      appSKey: 'B035CCE24E4A040EB5CECBF21724412D',
    });
    // The same frame answers only that DevNonce: another one changes the MIC's input.
    device.joinRequest(0x7370);
    expect(() => device.acceptJoin(H('20660ECB51004773E1DB02C407E48814C1'))).toThrow(/MIC mismatch.*JSIntKey/);
  });
});

describe('SimulatedOtaaDevice: round trips', () => {
  const APP_KEY = '2B7E151628AED2A6ABF7158809CF4F3C';
  const NWK_KEY = '000102030405060708090A0B0C0D0E0F';
  const JOIN_EUI = '70B3D57ED0000001';
  const DEV_EUI = '0004A30B001C0530';
  const CF_LIST = H('184F84E85684B85E84886684586E8400');

  function device(macVersion: OtaaMacVersion): SimulatedOtaaDevice {
    return new SimulatedOtaaDevice({
      joinEui: JOIN_EUI,
      devEui: DEV_EUI,
      appKey: APP_KEY,
      macVersion,
      ...(macVersion === 'MAC_V1_1' ? { nwkKey: NWK_KEY } : {}),
    });
  }

  /** What a JS checks of the join-request and answers, with lora-packet. */
  function network(request: Buffer, macVersion: OtaaMacVersion, o: { optNeg?: boolean; cfList?: Buffer } = {}) {
    const is11 = macVersion === 'MAC_V1_1';
    const rootKey = H(is11 ? NWK_KEY : APP_KEY);
    const parsed = loraPacket.fromWire(request);
    expect(parsed.getMType()).toBe('Join Request');
    expect(loraPacket.verifyMIC(parsed, undefined, rootKey)).toBe(true);
    const devNonce = hex(parsed.getBuffers().DevNonce ?? Buffer.alloc(0));
    expect([hex(parsed.getBuffers().AppEUI ?? Buffer.alloc(0)), hex(parsed.getBuffers().DevEUI ?? Buffer.alloc(0))]).toEqual([JOIN_EUI, DEV_EUI]);
    const optNeg = o.optNeg ?? is11;
    const fields = { joinNonce: '00002A', netId: '000013', devAddr: '260B1234', rx1DrOffset: 1, rx2Dr: 3, rxDelay: 5, cfList: o.cfList };
    const jsIntKey = hex(loraPacket.generateJSKeys(H(NWK_KEY), H(DEV_EUI)).JSIntKey);
    const accept = loraJoinAccept({ ...fields, key: hex(rootKey), optNeg, ...(optNeg ? { jsIntKey, joinEui: JOIN_EUI, devNonce } : {}) });
    return { accept, devNonce, optNeg };
  }

  it.each(OTAA_MAC_VERSIONS)('%s: join-request, join-accept, the keys both sides derive', (macVersion) => {
    const d = device(macVersion);
    const { accept, devNonce, optNeg } = network(d.joinRequest(), macVersion, { cfList: CF_LIST });
    expect(accept).toHaveLength(33);
    const accepted = d.acceptJoin(accept);
    expect(accepted).toMatchObject({ devAddr: '260B1234', netId: '000013', joinNonce: '00002A', devNonce, rxDelay: 5, cfList: CF_LIST });
    expect(accepted.dlSettings).toEqual({ optNeg, rx1DrOffset: 1, rx2Dr: 3 });
    if (macVersion === 'MAC_V1_1') {
      const k = loraPacket.generateSessionKeys11(H(APP_KEY), H(NWK_KEY), H(JOIN_EUI), H('00002A'), H(devNonce));
      expect(accepted.keys).toEqual({
        fNwkSIntKey: hex(k.FNwkSIntKey),
        sNwkSIntKey: hex(k.SNwkSIntKey),
        nwkSEncKey: hex(k.NwkSEncKey),
        appSKey: hex(k.AppSKey),
      });
    } else {
      const k = loraPacket.generateSessionKeys10(H(APP_KEY), H('000013'), H('00002A'), H(devNonce));
      expect(accepted.keys).toEqual({ nwkSKey: hex(k.NwkSKey), appSKey: hex(k.AppSKey) });
    }
  });

  it('a 17-byte join-accept has no CFList', () => {
    const d = device('MAC_V1_0_3');
    const { accept } = network(d.joinRequest(), 'MAC_V1_0_3');
    expect(accept).toHaveLength(17);
    expect(d.acceptJoin(accept)).not.toHaveProperty('cfList');
  });

  it('1.1 answered without OptNeg: MIC and 1.0-style keys from the NwkKey', () => {
    const d = device('MAC_V1_1');
    const { accept, devNonce } = network(d.joinRequest(), 'MAC_V1_1', { optNeg: false });
    const accepted = d.acceptJoin(accept);
    const k = loraPacket.generateSessionKeys10(H(NWK_KEY), H('000013'), H('00002A'), H(devNonce));
    expect(accepted.dlSettings.optNeg).toBe(false);
    expect(accepted.keys).toEqual({ nwkSKey: hex(k.NwkSKey), appSKey: hex(k.AppSKey) });
  });

  it('refuses a tampered join-accept, a wrong key, a wrong MType or length', () => {
    const d = device('MAC_V1_0_3');
    const { accept } = network(d.joinRequest(), 'MAC_V1_0_3', { cfList: CF_LIST });
    for (const i of [1, 12, 32]) {
      const tampered = Buffer.from(accept);
      tampered[i] ^= 0x01;
      expect(() => d.acceptJoin(tampered)).toThrow(/join-accept MIC mismatch: received [0-9A-F]{8}, computed with the AppKey/);
    }
    const other = new SimulatedOtaaDevice({ joinEui: JOIN_EUI, devEui: DEV_EUI, appKey: NWK_KEY, macVersion: 'MAC_V1_0_3' });
    other.joinRequest();
    expect(() => other.acceptJoin(accept)).toThrow(/MIC mismatch/);
    expect(() => d.acceptJoin(Buffer.concat([H('40'), accept.subarray(1)]))).toThrow(/not a join-accept: MType Unconfirmed data up/);
    expect(() => d.acceptJoin(Buffer.concat([H('21'), accept.subarray(1)]))).toThrow(/major version 1/);
    expect(() => d.acceptJoin(accept.subarray(0, 20))).toThrow(/20 bytes, expected 17 or 33/);
    expect(() => d.acceptJoin(Buffer.alloc(0))).toThrow(/empty/);
  });

  it('refuses OptNeg (RFU before 1.1) for a 1.0.x device, whose join-accept MIC is the 1.0 one either way', () => {
    const d = device('MAC_V1_0_3');
    d.joinRequest();
    const packet = loraPacket.fromFields({
      MType: 'Join Accept',
      AppNonce: H('00002B'),
      NetID: H('000013'),
      DevAddr: H('260B1234'),
      DLSettings: H('80'),
      RxDelay: H('05'),
      AppEUI: H(JOIN_EUI),
      DevNonce: H('0000'),
    });
    // lora-packet picks its MIC formula by the DLSettings field: clear it there so that it signs the
    // frame (DLSettings 0x80 in MACPayload) with the 1.0 MIC.
    packet.DLSettings = H('00');
    const mic = loraPacket.calculateMIC(packet, undefined, H(APP_KEY));
    const { MHDR, MACPayload } = packet.getBuffers();
    const onAir = Buffer.concat([MHDR ?? H(''), encryptJoinAcceptBody(H(APP_KEY), Buffer.concat([MACPayload ?? H(''), mic]))]);
    expect(() => d.acceptJoin(onAir)).toThrow(/OptNeg set, for a MAC_V1_0_3 device/);
  });

  it('1.1 with OptNeg: a join-accept signed with the NwkKey instead of the JSIntKey is refused', () => {
    const d = device('MAC_V1_1');
    const request = loraPacket.fromWire(d.joinRequest());
    const devNonce = hex(request.getBuffers().DevNonce ?? Buffer.alloc(0));
    const wrong = loraJoinAccept({
      key: NWK_KEY,
      joinNonce: '00002A',
      netId: '000013',
      devAddr: '260B1234',
      optNeg: true,
      jsIntKey: NWK_KEY,
      joinEui: JOIN_EUI,
      devNonce,
    });
    expect(() => d.acceptJoin(wrong)).toThrow(/MIC mismatch.*JSIntKey/);
  });

  it('accepts nothing before a join-request', () => {
    expect(() => device('MAC_V1_0_3').acceptJoin(H('20'.padEnd(34, '0')))).toThrow(/no join-request sent/);
  });
});

describe('SimulatedOtaaDevice: DevNonce', () => {
  const base = { joinEui: '70B3D57ED0000001', devEui: '0004A30B001C0530', appKey: '01'.repeat(16) };
  const devNonceOf = (frame: Buffer) => frame.readUInt16LE(17);

  it.each(['MAC_V1_0_4', 'MAC_V1_1'] as const)('%s: a counter from 0, or from a given value on', (macVersion) => {
    const d = new SimulatedOtaaDevice({ ...base, macVersion, ...(macVersion === 'MAC_V1_1' ? { nwkKey: '02'.repeat(16) } : {}) });
    expect(d.devNonceIsCounter).toBe(true);
    expect([0, 1, 2].map(() => devNonceOf(d.joinRequest()))).toEqual([0, 1, 2]);
    expect(d.lastDevNonce).toBe(2);
    expect(devNonceOf(d.joinRequest(0x1233))).toBe(0x1233);
    expect(devNonceOf(d.joinRequest())).toBe(0x1234);
    d.joinRequest(0xffff);
    expect(() => d.joinRequest()).toThrow(/counter is exhausted/);
  });

  it('MAC_V1_0_3: random DevNonces that never repeat one it sent', () => {
    const d = new SimulatedOtaaDevice({ ...base, macVersion: 'MAC_V1_0_3' });
    expect(d.devNonceIsCounter).toBe(false);
    d.joinRequest(7);
    const drawn = new Set<number>();
    for (let i = 0; i < 0xffff; i++) drawn.add(devNonceOf(d.joinRequest()));
    // Each of the other 65535 values once: no repeat, not the given 7, and none left.
    expect(drawn.size).toBe(0xffff);
    expect(drawn.has(7)).toBe(false);
    expect(() => d.joinRequest()).toThrow(/all 65536 DevNonces have been used/);
  });

  it('MAC_V1_0_3: a given DevNonce is sent as is, even a repeat (a deliberate replay)', () => {
    const d = new SimulatedOtaaDevice({ ...base, macVersion: 'MAC_V1_0_3' });
    expect(devNonceOf(d.joinRequest(7))).toBe(7);
    expect(devNonceOf(d.joinRequest(7))).toBe(7);
    expect(d.lastDevNonce).toBe(7);
  });

  it('refuses a DevNonce out of range and bad options', () => {
    const d = new SimulatedOtaaDevice({ ...base, macVersion: 'MAC_V1_0_4' });
    expect(() => d.joinRequest(0x10000)).toThrow(/0 to 0xFFFF/);
    expect(() => d.joinRequest(-1)).toThrow(/0 to 0xFFFF/);
    expect(() => new SimulatedOtaaDevice({ ...base, macVersion: 'MAC_V1_1' })).toThrow(/needs a nwkKey/);
    expect(() => new SimulatedOtaaDevice({ ...base, nwkKey: '02'.repeat(16), macVersion: 'MAC_V1_0_3' })).toThrow(/MAC_V1_1 only/);
    expect(() => new SimulatedOtaaDevice({ ...base, appKey: 'XYZ', macVersion: 'MAC_V1_0_3' })).toThrow(/appKey must be 32 hex digits/);
    expect(() => new SimulatedOtaaDevice({ ...base, macVersion: 'MAC_V2' as OtaaMacVersion })).toThrow(/macVersion must be one of/);
  });
});
