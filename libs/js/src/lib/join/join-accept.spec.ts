import { randomBytes } from 'node:crypto';
import loraPacket from 'lora-packet';
import { isStackError } from '@lorawan/errors';
import { acceptJoin, type JoinDevice, type JoinRequestInput } from './join-accept';

/** Join-requests are built, and join-accepts decrypted and checked, by lora-packet (an independent implementation). */
const APP_KEY = Buffer.from('98929B92C49EDBA9676D646D3B612456', 'hex');
const NWK_KEY = Buffer.from('0102030405060708090A0B0C0D0E0F10', 'hex');
const JOIN_EUI = '70B3D57ED0000001';
const DEV_EUI = '0004A30B001C0530';
const hex = (b: Buffer | undefined) => (b ?? Buffer.alloc(0)).toString('hex').toUpperCase();

function joinRequest(devNonce: number, key: Buffer = APP_KEY): Buffer {
  const nonce = Buffer.alloc(2);
  nonce.writeUInt16BE(devNonce);
  return loraPacket
    .fromFields(
      { MType: 'Join Request', AppEUI: Buffer.from(JOIN_EUI, 'hex'), DevEUI: Buffer.from(DEV_EUI, 'hex'), DevNonce: nonce },
      undefined,
      undefined,
      key,
    )
    .getPHYPayload() as Buffer;
}

const request = (raw: Buffer, version = 'MAC_V1_0_3', over: Partial<JoinRequestInput> = {}): JoinRequestInput => ({
  raw_payload: raw,
  selected_mac_version: version,
  net_id: '000013',
  dev_addr: '260B1234',
  downlink_settings: { rx1_dr_offset: 1, rx2_dr: 3 },
  rx_delay: 5,
  cf_list: Buffer.from('184F84E85684B85E84886684586E8400', 'hex'),
  ...over,
});

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (isStackError(err)) return `${err.namespace}:${err.errorName}`;
    throw err;
  }
  throw new Error('not refused');
}

describe('acceptJoin (LoRaWAN 1.0.x)', () => {
  const device: JoinDevice = { app_key: hex(APP_KEY) };

  it('answers a join-accept that the device decrypts and verifies, with the keys the device derives', () => {
    const accepted = acceptJoin(device, request(joinRequest(0x1234)));
    expect([accepted.join_eui, accepted.dev_eui, accepted.dev_nonce, accepted.join_nonce]).toEqual([JOIN_EUI, DEV_EUI, 0x1234, '000001']);
    const decrypted = loraPacket.fromWire(loraPacket.decryptJoinAccept(loraPacket.fromWire(accepted.raw_payload), APP_KEY));
    expect(loraPacket.verifyMIC(decrypted, undefined, APP_KEY)).toBe(true);
    const b = decrypted.getBuffers();
    expect([hex(b.AppNonce), hex(b.NetID), hex(b.DevAddr), b.DLSettings?.[0], b.RxDelay?.[0], hex(b.CFList)]).toEqual([
      '000001',
      '000013',
      '260B1234',
      (1 << 4) | 3,
      5,
      '184F84E85684B85E84886684586E8400',
    ]);
    const deviceKeys = loraPacket.generateSessionKeys10(APP_KEY, Buffer.from('000013', 'hex'), Buffer.from('000001', 'hex'), Buffer.from('1234', 'hex'));
    expect(accepted.keys).toEqual({ f_nwk_s_int_key: hex(deviceKeys.NwkSKey), app_s_key: hex(deviceKeys.AppSKey) });
    expect(accepted.nonces).toEqual({ used_dev_nonces: [0x1234], last_join_nonce: 1 });
    // A 13-byte join-accept without CFList: 17 bytes on air.
    expect(acceptJoin(device, request(joinRequest(7), 'MAC_V1_0_2', { cf_list: undefined })).raw_payload).toHaveLength(17);
  });

  it('refuses a bad MIC, a reused random DevNonce (unless nonces may reset), and counts JoinNonces', () => {
    expect(refusal(() => acceptJoin(device, request(joinRequest(1, randomBytes(16)))))).toBe('pkg/joinserver:mic_mismatch');
    const after = { ...device, used_dev_nonces: [5, 6], last_join_nonce: 41 };
    expect(refusal(() => acceptJoin(after, request(joinRequest(6))))).toBe('pkg/joinserver:reuse_dev_nonce');
    const again = acceptJoin({ ...after, resets_join_nonces: true }, request(joinRequest(6)));
    expect(again.nonces).toEqual({ used_dev_nonces: [5, 6], last_join_nonce: 42 });
    expect(again.join_nonce).toBe('00002A');
    // Only the newest DevNonces are kept.
    const many = acceptJoin({ ...device, used_dev_nonces: Array.from({ length: 10 }, (_, i) => i) }, request(joinRequest(100)));
    expect(many.nonces.used_dev_nonces).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 100]);
    expect(refusal(() => acceptJoin({ ...device, last_join_nonce: 0xffffff }, request(joinRequest(1))))).toBe('pkg/joinserver:join_nonce_too_high');
  });

  it('refuses what it cannot handle', () => {
    expect(refusal(() => acceptJoin({}, request(joinRequest(1))))).toBe('pkg/joinserver:no_app_key');
    expect(refusal(() => acceptJoin(device, request(joinRequest(1), 'MAC_V2')))).toBe('pkg/joinserver:mac_version');
    expect(refusal(() => acceptJoin(device, request(Buffer.from('40DA1B01260000010000000000', 'hex'))))).toBe('pkg/joinserver:payload_type');
    expect(refusal(() => acceptJoin(device, request(Buffer.from('00', 'hex'))))).toBe('pkg/joinserver:decode_payload');
  });
});

describe('acceptJoin (LoRaWAN 1.0.4 and 1.1: DevNonce is a counter)', () => {
  it('1.0.4: accepts a growing DevNonce only; DevNonce 0 once on a fresh device', () => {
    const device: JoinDevice = { app_key: hex(APP_KEY) };
    expect(acceptJoin(device, request(joinRequest(0), 'MAC_V1_0_4')).nonces).toEqual({ last_dev_nonce: 0, last_join_nonce: 1 });
    const joined = { ...device, last_dev_nonce: 9, last_join_nonce: 3 };
    expect(refusal(() => acceptJoin(joined, request(joinRequest(9), 'MAC_V1_0_4')))).toBe('pkg/joinserver:dev_nonce_too_small');
    expect(refusal(() => acceptJoin(joined, request(joinRequest(2), 'MAC_V1_0_4')))).toBe('pkg/joinserver:dev_nonce_too_small');
    expect(acceptJoin(joined, request(joinRequest(10), 'MAC_V1_0_4')).nonces).toEqual({ last_dev_nonce: 10, last_join_nonce: 4 });
    expect(acceptJoin({ ...joined, resets_join_nonces: true }, request(joinRequest(2), 'MAC_V1_0_4')).nonces.last_dev_nonce).toBe(2);
  });

  it('1.1: MIC with the NwkKey, join-accept with OptNeg and a JSIntKey MIC, four session keys as the device derives them', () => {
    const device: JoinDevice = { app_key: hex(APP_KEY), nwk_key: hex(NWK_KEY) };
    expect(refusal(() => acceptJoin(device, request(joinRequest(3, APP_KEY), 'MAC_V1_1')))).toBe('pkg/joinserver:mic_mismatch');
    const accepted = acceptJoin(device, request(joinRequest(3, NWK_KEY), 'MAC_V1_1', { cf_list: undefined }));
    const received = loraPacket.fromWire(loraPacket.decryptJoinAccept(loraPacket.fromWire(accepted.raw_payload), NWK_KEY));
    expect((received.getBuffers().DLSettings?.[0] ?? 0) & 0x80).toBe(0x80);
    const jsKeys = loraPacket.generateJSKeys(NWK_KEY, Buffer.from(DEV_EUI, 'hex'));
    // lora-packet checks a 1.1 join-accept's MIC with JSIntKey once told the JoinReqType, JoinEUI and DevNonce it answers.
    Object.assign(received, { JoinReqType: Buffer.from([0xff]), JoinEUI: Buffer.from(JOIN_EUI, 'hex'), DevNonce: Buffer.from('0003', 'hex') });
    expect(loraPacket.verifyMIC(received, jsKeys.JSIntKey)).toBe(true);
    expect(loraPacket.verifyMIC(received, NWK_KEY)).toBe(false);
    const keys = loraPacket.generateSessionKeys11(
      APP_KEY,
      NWK_KEY,
      Buffer.from(JOIN_EUI, 'hex'),
      Buffer.from(accepted.join_nonce, 'hex'),
      Buffer.from('0003', 'hex'),
    );
    expect(accepted.keys).toEqual({
      f_nwk_s_int_key: hex(keys.FNwkSIntKey),
      s_nwk_s_int_key: hex(keys.SNwkSIntKey),
      nwk_s_enc_key: hex(keys.NwkSEncKey),
      app_s_key: hex(keys.AppSKey),
    });
    expect(refusal(() => acceptJoin({ app_key: hex(APP_KEY) }, request(joinRequest(4, NWK_KEY), 'MAC_V1_1')))).toBe('pkg/joinserver:no_nwk_key');
  });
});
