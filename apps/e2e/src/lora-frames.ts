/** LoRaWAN frames as devices send them, built by lora-packet (never by the stack's own code), for the e2e suites. */
import loraPacket from 'lora-packet';

/** A data uplink as the device sends it, built by lora-packet with the session keys the device derived. */
export function dataUplink(
  keys: { nwkSKey: string; appSKey: string },
  devAddr: string,
  fCnt: number,
  fPort: number,
  payload: Buffer,
  o: { confirmed?: boolean; ack?: boolean; classB?: boolean } = {},
): Buffer {
  const high = Buffer.alloc(2);
  high.writeUInt16LE(fCnt >>> 16);
  return loraPacket
    .fromFields(
      {
        MType: o.confirmed ? 'Confirmed Data Up' : 'Unconfirmed Data Up',
        DevAddr: Buffer.from(devAddr, 'hex'),
        FCnt: fCnt & 0xffff,
        FPort: fPort,
        payload,
        // Uplink FCtrl bit 4 is the ClassB bit (lora-packet names it by its downlink meaning, FPending).
        ...(o.ack || o.classB ? { FCtrl: { ACK: o.ack ?? false, FPending: o.classB ?? false } } : {}),
      },
      Buffer.from(keys.appSKey, 'hex'),
      Buffer.from(keys.nwkSKey, 'hex'),
      undefined,
      high,
    )
    .getPHYPayload() as Buffer;
}
