import loraPacket from 'lora-packet';
import { dataDownlinkFrame } from './data-downlink-frame';

const NWK_S_KEY = '44024241ED4CE9A68C6A8BC055233FD3';
const APP_S_KEY = 'EC925802AE430CA77FD3DD73CB2CC588';

describe('data downlink frame (checked by lora-packet)', () => {
  it('builds an unconfirmed downlink with ACK and FPending whose MIC lora-packet verifies (32-bit FCnt)', () => {
    // The AS's encryption, done here by lora-packet: the FRMPayload of a frame it builds with the same fields.
    const reference = loraPacket.fromFields(
      {
        MType: 'Unconfirmed Data Down',
        DevAddr: Buffer.from('49BE7DF1', 'hex'),
        FCnt: 0x0002,
        FPort: 1,
        payload: Buffer.from('test'),
        FCtrl: { ACK: true, FPending: true },
      },
      Buffer.from(APP_S_KEY, 'hex'),
      Buffer.from(NWK_S_KEY, 'hex'),
      undefined,
      Buffer.from([0x01, 0x00]),
    );
    const frame = dataDownlinkFrame(
      {
        confirmed: false,
        dev_addr: '49BE7DF1',
        adr: false,
        ack: true,
        f_pending: true,
        f_cnt: 0x00010002,
        f_port: 1,
        frm_payload: reference.FRMPayload as Buffer,
      },
      { lorawan_version: 'MAC_V1_0_3', key: NWK_S_KEY },
    );
    const parsed = loraPacket.fromWire(frame);
    expect(parsed.getMType()).toBe('Unconfirmed Data Down');
    expect(parsed.getFCtrlACK()).toBe(true);
    expect(parsed.getFCtrlFPending()).toBe(true);
    expect(loraPacket.verifyMIC(parsed, Buffer.from(NWK_S_KEY, 'hex'), undefined, Buffer.from([0x01, 0x00]))).toBe(true);
    expect(loraPacket.decrypt(parsed, Buffer.from(APP_S_KEY, 'hex'), Buffer.from(NWK_S_KEY, 'hex'), Buffer.from([0x01, 0x00])).toString()).toBe('test');
  });

  it('builds a confirmed downlink and an empty ACK-only one (no FPort)', () => {
    const confirmed = loraPacket.fromWire(
      dataDownlinkFrame(
        { confirmed: true, dev_addr: '26011BDA', adr: true, ack: false, f_pending: false, f_cnt: 5, f_port: 3, frm_payload: Buffer.from([1, 2]) },
        { lorawan_version: 'MAC_V1_0_2', key: NWK_S_KEY },
      ),
    );
    expect(confirmed.getMType()).toBe('Confirmed Data Down');
    expect(confirmed.getFCtrlADR()).toBe(true);
    expect(loraPacket.verifyMIC(confirmed, Buffer.from(NWK_S_KEY, 'hex'))).toBe(true);
    const ackOnly = dataDownlinkFrame(
      { confirmed: false, dev_addr: '26011BDA', adr: false, ack: true, f_pending: false, f_cnt: 6 },
      { lorawan_version: 'MAC_V1_0_3', key: NWK_S_KEY },
    );
    expect(ackOnly).toHaveLength(12);
    expect(loraPacket.verifyMIC(loraPacket.fromWire(ackOnly), Buffer.from(NWK_S_KEY, 'hex'))).toBe(true);
  });
});
