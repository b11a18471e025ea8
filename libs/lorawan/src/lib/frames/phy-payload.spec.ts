import loraPacket from 'lora-packet';
import { joinAcceptPayload, parsePhyPayload } from './phy-payload';

/** Frames built with lora-packet (an independent implementation) and real frames of dataplane-notes §7. */
describe('PHYPayload', () => {
  it('parses a join-request (JR of §7): EUIs and DevNonce in API order, the MIC', () => {
    expect(parsePhyPayload(Buffer.from('0039363463336913AA05693574323831330489C65B1304', 'hex'))).toEqual({
      mhdr: { m_type: 'JOIN_REQUEST', major: 0 },
      mic: Buffer.from('C65B1304', 'hex'),
      join_request_payload: { join_eui: 'AA13693363343639', dev_eui: '3331383274356905', dev_nonce: '8904' },
    });
  });

  it('parses data frames as lora-packet builds them: FHDR, FOpts, FPort, FRMPayload, both directions', () => {
    const up = loraPacket.fromFields(
      {
        MType: 'Confirmed Data Up',
        DevAddr: Buffer.from('26011BDA', 'hex'),
        FCnt: 0x1234,
        FCtrl: { ADR: true, ADRACKReq: true, ACK: false },
        FOpts: Buffer.from('0203', 'hex'),
        FPort: 7,
        payload: Buffer.from('hello'),
      },
      Buffer.alloc(16, 1),
      Buffer.alloc(16, 2),
    );
    const parsed = parsePhyPayload(up.getPHYPayload() as Buffer);
    expect(parsed).toMatchObject({
      mhdr: { m_type: 'CONFIRMED_UP', major: 0 },
      mac_payload: {
        f_hdr: {
          dev_addr: '26011BDA',
          f_ctrl: { adr: true, adr_ack_req: true, ack: false, class_b: false },
          f_cnt: 0x1234,
          f_opts: Buffer.from('0203', 'hex'),
        },
        f_port: 7,
      },
    });
    expect('mac_payload' in parsed && parsed.mac_payload?.frm_payload).toEqual(up.getBuffers().FRMPayload);
    expect('mic' in parsed && parsed.mic).toEqual(up.getBuffers().MIC);
    const down = loraPacket.fromFields(
      { MType: 'Unconfirmed Data Down', DevAddr: Buffer.from('26011BDA', 'hex'), FCnt: 3, FCtrl: { ACK: true, FPending: true }, payload: Buffer.alloc(0) },
      Buffer.alloc(16, 1),
      Buffer.alloc(16, 2),
    );
    expect(parsePhyPayload(down.getPHYPayload() as Buffer)).toMatchObject({
      mhdr: { m_type: 'UNCONFIRMED_DOWN' },
      mac_payload: { f_hdr: { f_ctrl: { adr: false, ack: true, f_pending: true }, f_cnt: 3 }, f_port: undefined, frm_payload: Buffer.alloc(0) },
    });
  });

  it.each<[string, string, string]>([
    ['too short', '0001', 'at least an MHDR and a MIC'],
    ['an unknown major version', '01' + '00'.repeat(22), 'major version 1'],
    ['a join-request of the wrong size', '00' + '00'.repeat(20), 'a join-request is 23 bytes'],
    ['a data frame without a full FHDR', '40' + '00'.repeat(6) + '00000000', 'at least a 7-byte FHDR'],
    ['FOptsLen beyond the frame', '40' + 'DA1B0126' + '0F' + '0100' + '00000000', 'FOptsLen 15'],
    ['MAC commands twice', '40' + 'DA1B0126' + '01' + '0100' + '02' + '00' + '03' + '00000000', 'FPort 0'],
  ])('refuses %s', (_, hex, error) => {
    expect(parsePhyPayload(Buffer.from(hex, 'hex'))).toEqual({ error: expect.stringContaining(error) });
  });

  it('builds the join-accept of §7 JA, which lora-packet reads back', () => {
    const plain = joinAcceptPayload({
      join_nonce: '376338',
      net_id: 'AABBCC',
      dev_addr: '012CCDE7',
      rx1_data_rate_offset: 0,
      rx2_data_rate_index: 0,
      rx_delay: 1,
    });
    expect(plain.toString('hex').toUpperCase()).toBe('20386337CCBBAAE7CD2C010001');
    const withCfList = joinAcceptPayload({
      join_nonce: '000001',
      net_id: '000013',
      dev_addr: '26011BDA',
      opt_neg: true,
      rx1_data_rate_offset: 2,
      rx2_data_rate_index: 3,
      rx_delay: 5,
      cf_list: Buffer.from('184F84E85684B85E84886684586E8400', 'hex'),
    });
    const read = loraPacket.fromWire(Buffer.concat([withCfList, Buffer.alloc(4)]));
    const b = read.getBuffers();
    const hex = (x: Buffer | undefined) => (x ?? Buffer.alloc(0)).toString('hex').toUpperCase();
    expect([hex(b.DevAddr), hex(b.NetID), b.DLSettings?.[0], b.RxDelay?.[0], hex(b.CFList)]).toEqual([
      '26011BDA',
      '000013',
      0x80 | (2 << 4) | 3,
      5,
      '184F84E85684B85E84886684586E8400',
    ]);
    expect(() =>
      joinAcceptPayload({ join_nonce: '01', net_id: '000013', dev_addr: '26011BDA', rx1_data_rate_offset: 0, rx2_data_rate_index: 0, rx_delay: 1 }),
    ).toThrow('3 bytes');
    expect(() =>
      joinAcceptPayload({ join_nonce: '000001', net_id: '000013', dev_addr: '26011BDA', rx1_data_rate_offset: 8, rx2_data_rate_index: 0, rx_delay: 1 }),
    ).toThrow('out of range');
  });
});
