import { randomInt } from 'node:crypto';
import loraPacket from 'lora-packet';

/**
 * An OTAA end device for tests and the CLI simulator. Every frame is built and checked by
 * `lora-packet`, an independent LoRaWAN implementation, and never by the stack's own
 * `@lorawan/crypto` or `@lorawan/lorawan`, so that one bug cannot hide on both sides of a join.
 *
 * Hex strings are big-endian, as in the API (dataplane-notes §2; lora-packet takes and returns
 * big-endian buffers and reverses them on air).
 */

/** The LoRaWAN versions a device can join with (TTS `lorawan_version`). */
export const OTAA_MAC_VERSIONS = ['MAC_V1_0', 'MAC_V1_0_1', 'MAC_V1_0_2', 'MAC_V1_0_3', 'MAC_V1_0_4', 'MAC_V1_1'] as const;
export type OtaaMacVersion = (typeof OTAA_MAC_VERSIONS)[number];

export interface OtaaDeviceOptions {
  /** 16 hex digits. */
  joinEui: string;
  /** 16 hex digits. */
  devEui: string;
  /** 32 hex digits: the root key of 1.0.x, the application root key of 1.1. */
  appKey: string;
  /** 32 hex digits: the network root key, MAC_V1_1 only (required there). */
  nwkKey?: string;
  macVersion: OtaaMacVersion;
}

/**
 * Session keys as 32 hex digits. A 1.0-style session (1.0.x, or 1.1 answered with OptNeg=0) has one
 * network key; a 1.1 session (OptNeg=1) has three.
 */
export type OtaaSessionKeys = { nwkSKey: string; appSKey: string } | { fNwkSIntKey: string; sNwkSIntKey: string; nwkSEncKey: string; appSKey: string };

export interface AcceptedJoin {
  /** 8 hex digits. */
  devAddr: string;
  /** 6 hex digits. */
  netId: string;
  /** 6 hex digits (AppNonce in 1.0). */
  joinNonce: string;
  /** 4 hex digits: the DevNonce of the join-request this join-accept answers. */
  devNonce: string;
  dlSettings: { optNeg: boolean; rx1DrOffset: number; rx2Dr: number };
  /** The RxDelay field (bits 3..0): RX1 delay in seconds, 0 meaning 1 s. */
  rxDelay: number;
  /** The 16-byte CFList, when the join-accept carries one (33 bytes on air). */
  cfList?: Buffer;
  keys: OtaaSessionKeys;
}

type Packet = ReturnType<typeof loraPacket.fromWire>;

const MTYPES = [
  'Join-request',
  'Join-accept',
  'Unconfirmed data up',
  'Unconfirmed data down',
  'Confirmed data up',
  'Confirmed data down',
  'Rejoin-request',
  'Proprietary',
];

function hexBytes(value: string, bytes: number, name: string): Buffer {
  if (!new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(value)) throw new Error(`${name} must be ${bytes * 2} hex digits, got "${value}"`);
  return Buffer.from(value, 'hex');
}

const hex = (b: Buffer): string => b.toString('hex').toUpperCase();

function u16(value: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(value);
  return b;
}

export class SimulatedOtaaDevice {
  readonly macVersion: OtaaMacVersion;
  private readonly joinEui: Buffer;
  private readonly devEui: Buffer;
  private readonly appKey: Buffer;
  private readonly nwkKey?: Buffer;
  /** 1.0.4 and 1.1: the next DevNonce of the counter. */
  private nextDevNonce = 0;
  /** 1.0.0–1.0.3: every DevNonce sent, so that a random one is never reused. */
  private readonly usedDevNonces = new Set<number>();
  private pendingDevNonce?: number;

  constructor(o: OtaaDeviceOptions) {
    if (!(OTAA_MAC_VERSIONS as readonly string[]).includes(o.macVersion)) {
      throw new Error(`macVersion must be one of ${OTAA_MAC_VERSIONS.join(', ')}, got "${String(o.macVersion)}"`);
    }
    this.macVersion = o.macVersion;
    this.joinEui = hexBytes(o.joinEui, 8, 'joinEui');
    this.devEui = hexBytes(o.devEui, 8, 'devEui');
    this.appKey = hexBytes(o.appKey, 16, 'appKey');
    if (this.is11 && o.nwkKey === undefined) throw new Error('a MAC_V1_1 device needs a nwkKey');
    if (!this.is11 && o.nwkKey !== undefined) throw new Error(`nwkKey applies to MAC_V1_1 only, not ${o.macVersion}`);
    if (o.nwkKey !== undefined) this.nwkKey = hexBytes(o.nwkKey, 16, 'nwkKey');
  }

  private get is11(): boolean {
    return this.macVersion === 'MAC_V1_1';
  }

  /** DevNonce is a counter from 1.0.4 on (the JS wants it above the last one), random before. */
  get devNonceIsCounter(): boolean {
    return this.macVersion === 'MAC_V1_0_4' || this.is11;
  }

  /** The key of the join-request MIC and of the join-accept's encryption: AppKey (1.0.x), NwkKey (1.1). */
  private get rootNetworkKey(): Buffer {
    return this.nwkKey ?? this.appKey;
  }

  /** The DevNonce of the latest join-request, undefined before the first. */
  get lastDevNonce(): number | undefined {
    return this.pendingDevNonce;
  }

  /**
   * A join-request's PHYPayload. Without `devNonce`: the counter's next value (1.0.4, 1.1; from 0),
   * or a random DevNonce this device has not sent before (1.0.0–1.0.3). With `devNonce` (0–0xFFFF):
   * exactly that one, even a repeat (a test of the JS's replay checks); the counter continues after
   * it.
   */
  joinRequest(devNonce?: number): Buffer {
    const nonce = this.chooseDevNonce(devNonce);
    const frame = loraPacket
      .fromFields({ MType: 'Join Request', AppEUI: this.joinEui, DevEUI: this.devEui, DevNonce: u16(nonce) }, undefined, undefined, this.rootNetworkKey)
      .getPHYPayload();
    if (!frame) throw new Error('lora-packet built no join-request');
    this.pendingDevNonce = nonce;
    return frame;
  }

  private chooseDevNonce(given: number | undefined): number {
    let nonce: number;
    if (given !== undefined) {
      if (!Number.isInteger(given) || given < 0 || given > 0xffff) throw new Error(`DevNonce must be an integer from 0 to 0xFFFF, got ${given}`);
      nonce = given;
    } else if (this.devNonceIsCounter) {
      if (this.nextDevNonce > 0xffff) throw new Error('the DevNonce counter is exhausted (0xFFFF sent): the device must get new root keys');
      nonce = this.nextDevNonce;
    } else {
      if (this.usedDevNonces.size > 0xffff) throw new Error('all 65536 DevNonces have been used');
      do nonce = randomInt(0x10000);
      while (this.usedDevNonces.has(nonce));
    }
    if (this.devNonceIsCounter) this.nextDevNonce = nonce + 1;
    else this.usedDevNonces.add(nonce);
    return nonce;
  }

  /**
   * Decrypts and checks the join-accept answering the latest join-request, and derives the session
   * keys. Throws on a wrong length or MType, or a MIC that does not verify.
   */
  acceptJoin(phyPayload: Buffer): AcceptedJoin {
    const devNonce = this.pendingDevNonce;
    if (devNonce === undefined) throw new Error('no join-request sent: call joinRequest() first');
    if (phyPayload.length === 0) throw new Error('not a join-accept: empty PHYPayload');
    const mType = phyPayload[0] >> 5;
    if (mType !== 1) throw new Error(`not a join-accept: MType ${MTYPES[mType]} (MHDR 0x${hex(phyPayload.subarray(0, 1))})`);
    if ((phyPayload[0] & 0x03) !== 0) throw new Error(`join-accept with LoRaWAN major version ${phyPayload[0] & 0x03}, expected 0 (R1)`);
    if (phyPayload.length !== 17 && phyPayload.length !== 33) throw new Error(`join-accept of ${phyPayload.length} bytes, expected 17 or 33`);

    // Encrypted with AES-ECB decrypt by the JS: the device recovers it with AES encrypt.
    const plain = loraPacket.fromWire(loraPacket.decryptJoinAccept(loraPacket.fromWire(phyPayload), this.rootNetworkKey));
    const b = plain.getBuffers();
    if (!b.AppNonce || !b.NetID || !b.DevAddr || !b.DLSettings || !b.RxDelay || !b.MIC) throw new Error('lora-packet could not parse the join-accept');
    const optNeg = plain.getDLSettingsOptNeg() === true;
    this.verifyJoinAcceptMic(plain, optNeg && this.is11, devNonce);
    // TTS sets OptNeg for 1.1 devices only: before 1.1 the bit is RFU.
    if (optNeg && !this.is11) throw new Error(`join-accept with OptNeg set, for a ${this.macVersion} device (the bit is RFU before 1.1)`);

    const devNonceBytes = u16(devNonce);
    let keys: OtaaSessionKeys;
    if (optNeg) {
      const k = loraPacket.generateSessionKeys11(this.appKey, this.rootNetworkKey, this.joinEui, b.AppNonce, devNonceBytes);
      keys = { fNwkSIntKey: hex(k.FNwkSIntKey), sNwkSIntKey: hex(k.SNwkSIntKey), nwkSEncKey: hex(k.NwkSEncKey), appSKey: hex(k.AppSKey) };
    } else {
      // 1.0.x from the AppKey; a 1.1 device answered without OptNeg falls back to 1.0 with its NwkKey.
      const k = loraPacket.generateSessionKeys10(this.rootNetworkKey, b.NetID, b.AppNonce, devNonceBytes);
      keys = { nwkSKey: hex(k.NwkSKey), appSKey: hex(k.AppSKey) };
    }
    return {
      devAddr: hex(b.DevAddr),
      netId: hex(b.NetID),
      joinNonce: hex(b.AppNonce),
      devNonce: hex(devNonceBytes),
      dlSettings: { optNeg, rx1DrOffset: plain.getDLSettingsRxOneDRoffset() ?? 0, rx2Dr: plain.getDLSettingsRxTwoDataRate() ?? 0 },
      rxDelay: plain.getRxDelayDel() ?? 0,
      ...(b.CFList?.length === 16 ? { cfList: Buffer.from(b.CFList) } : {}),
      keys,
    };
  }

  /**
   * 1.0.x, and 1.1 with OptNeg=0: CMAC(AppKey / NwkKey, MHDR | … | CFList). 1.1 with OptNeg=1:
   * CMAC(JSIntKey, JoinReqType 0xFF | JoinEUI | DevNonce | MHDR | … | CFList), JSIntKey derived from
   * the NwkKey and DevEUI; lora-packet computes it once told the JoinEUI and DevNonce answered.
   */
  private verifyJoinAcceptMic(plain: Packet, withJsIntKey: boolean, devNonce: number): void {
    let keyName: string;
    let computed: Buffer;
    if (withJsIntKey) {
      const { JSIntKey } = loraPacket.generateJSKeys(this.rootNetworkKey, this.devEui);
      plain.JoinReqType = Buffer.from([0xff]);
      plain.JoinEUI = this.joinEui;
      plain.DevNonce = u16(devNonce);
      keyName = 'JSIntKey';
      computed = loraPacket.calculateMIC(plain, JSIntKey);
    } else {
      keyName = this.is11 ? 'NwkKey' : 'AppKey';
      // lora-packet picks the MIC formula by the OptNeg bit; before 1.1 that bit is RFU and the MIC is
      // always the 1.0 one, so hide the bit from that choice (the MIC still covers the byte as received).
      if (plain.DLSettings) plain.DLSettings = Buffer.from([plain.DLSettings[0] & 0x7f]);
      computed = loraPacket.calculateMIC(plain, undefined, this.rootNetworkKey);
    }
    const received = plain.MIC ?? Buffer.alloc(0);
    if (!computed.equals(received)) throw new Error(`join-accept MIC mismatch: received ${hex(received)}, computed with the ${keyName} ${hex(computed)}`);
  }
}
