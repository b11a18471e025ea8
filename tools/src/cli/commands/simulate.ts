// The one CLI file that uses the test kit: its device (lora-packet, never the stack's own crypto)
// and its Semtech UDP packet forwarder. main.ts loads this module only for `simulate join`.
import { type AcceptedJoin, type OtaaMacVersion, type OtaaSessionKeys, SimulatedOtaaDevice, SimulatedUdpGateway } from '@lorawan/testing';
import { CliError } from '../errors';

export interface SimulateJoinOptions {
  /** The Gateway Server's UDP listener. */
  udp: { host: string; port: number };
  /** EUIs 16 and keys 32 hex digits, upper case. */
  gatewayEui: string;
  joinEui: string;
  devEui: string;
  appKey: string;
  /** MAC_V1_1 only. */
  nwkKey?: string;
  macVersion: OtaaMacVersion;
  /** Default: 0 for 1.0.4 and 1.1 (a counter), random before. */
  devNonce?: number;
  /** MHz. */
  frequency: number;
  /** LoRa data rate, e.g. SF7BW125. */
  dataRate: string;
  /** How long to wait for the join-accept after the join-request. */
  timeoutMs: number;
}

/** `simulate join`'s output, in the API's snake_case and big-endian hex. */
export interface SimulatedJoin {
  dev_addr: string;
  net_id: string;
  join_nonce: string;
  dev_nonce: string;
  dl_settings: { opt_neg: boolean; rx1_dr_offset: number; rx2_dr: number };
  rx_delay: number;
  cf_list?: string;
  rx_window: 'RX1' | 'RX2';
  txpk: { freq: unknown; datr: unknown; powe: unknown; tmst: unknown };
  session_keys: Record<string, string>;
}

/** A gateway acks PUSH_DATA and PULL_DATA at once (TTS acks before any lookup). */
const ACK_TIMEOUT_MS = 2000;
/** Packet forwarders send PULL_DATA every few seconds; the GS's downlink path expires after 90 s without. */
const KEEP_ALIVE_MS = 2000;
/** JoinAcceptDelay1 and 2 (LoRaWAN regional parameters), in concentrator µs. */
const JOIN_ACCEPT_DELAYS_US = { RX1: 5_000_000, RX2: 6_000_000 } as const;

/** The RX window a join-accept's `txpk.tmst` aims at, from the join-request's `tmst` (uint32 µs, wrapping). */
export function joinAcceptWindow(uplinkTmst: number, txTmst: unknown): 'RX1' | 'RX2' {
  if (typeof txTmst !== 'number')
    throw new CliError(`the join-accept's txpk has no tmst (${JSON.stringify(txTmst)}): a class A downlink is timed against the uplink`);
  const delay = (txTmst - uplinkTmst) >>> 0;
  if (delay === JOIN_ACCEPT_DELAYS_US.RX1) return 'RX1';
  if (delay === JOIN_ACCEPT_DELAYS_US.RX2) return 'RX2';
  throw new CliError(`the join-accept is scheduled ${delay} µs after the join-request: neither RX1 (5 s) nor RX2 (6 s)`);
}

function sessionKeys(keys: OtaaSessionKeys): Record<string, string> {
  if ('nwkSKey' in keys) return { nwk_s_key: keys.nwkSKey, app_s_key: keys.appSKey };
  return { f_nwk_s_int_key: keys.fNwkSIntKey, s_nwk_s_int_key: keys.sNwkSIntKey, nwk_s_enc_key: keys.nwkSEncKey, app_s_key: keys.appSKey };
}

function output(accepted: AcceptedJoin, rxWindow: 'RX1' | 'RX2', txpk: Record<string, unknown>): SimulatedJoin {
  const { dlSettings } = accepted;
  return {
    dev_addr: accepted.devAddr,
    net_id: accepted.netId,
    join_nonce: accepted.joinNonce,
    dev_nonce: accepted.devNonce,
    dl_settings: { opt_neg: dlSettings.optNeg, rx1_dr_offset: dlSettings.rx1DrOffset, rx2_dr: dlSettings.rx2Dr },
    rx_delay: accepted.rxDelay,
    ...(accepted.cfList ? { cf_list: accepted.cfList.toString('hex').toUpperCase() } : {}),
    rx_window: rxWindow,
    txpk: { freq: txpk.freq, datr: txpk.datr, powe: txpk.powe, tmst: txpk.tmst },
    session_keys: sessionKeys(accepted.keys),
  };
}

/** A concentrator's free-running µs counter. */
function concentratorTmst(): number {
  return Number((process.hrtime.bigint() / 1000n) % 2n ** 32n);
}

/**
 * One OTAA join over the Semtech UDP protocol, as a gateway and a device would do it: PULL_DATA
 * (repeated every 2 s), the join-request in a PUSH_DATA, then the first PULL_RESP is acknowledged
 * with TX_ACK and its payload decrypted and checked as the join-accept. Progress goes to `note`.
 */
export async function simulateJoin(o: SimulateJoinOptions, note: (line: string) => void = () => undefined): Promise<SimulatedJoin> {
  const device = new SimulatedOtaaDevice({ joinEui: o.joinEui, devEui: o.devEui, appKey: o.appKey, nwkKey: o.nwkKey, macVersion: o.macVersion });
  const server = `${o.udp.host}:${o.udp.port}`;
  const gateway = new SimulatedUdpGateway(o.gatewayEui, o.udp);
  await gateway.open();
  try {
    const ackTimeout = Math.min(ACK_TIMEOUT_MS, o.timeoutMs);
    await gateway.pull(ackTimeout).catch((err: Error) => {
      throw new CliError(`no PULL_ACK from ${server} (${err.message}): is a Gateway Server listening for UDP there?`);
    });
    gateway.keepAlive(KEEP_ALIVE_MS);

    const frame = device.joinRequest(o.devNonce);
    const devNonce = (device.lastDevNonce ?? 0).toString(16).toUpperCase().padStart(4, '0');
    const tmst = concentratorTmst();
    await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { freq: o.frequency, datr: o.dataRate, tmst })] }, ackTimeout).catch((err: Error) => {
      throw new CliError(`no PUSH_ACK from ${server} for the join-request (${err.message})`);
    });
    note(`join-request sent by gateway ${o.gatewayEui} to ${server}: DevEUI ${o.devEui}, DevNonce ${devNonce}, ${o.frequency} MHz ${o.dataRate}`);

    const [downlink] = await gateway.waitForDownlinks(1, o.timeoutMs).catch(() => {
      const hint = device.devNonceIsCounter ? `; ${o.macVersion} counts DevNonces: a Join Server refuses one not above the last it accepted (--dev-nonce)` : '';
      throw new CliError(`no join-accept within ${o.timeoutMs / 1000} s (DevNonce ${devNonce})${hint}`);
    });
    gateway.txAck(downlink.token);
    const { txpk } = downlink;
    if (typeof txpk.data !== 'string') throw new CliError(`the PULL_RESP carries no txpk.data: ${downlink.body ?? JSON.stringify(txpk)}`);
    let accepted: AcceptedJoin;
    try {
      accepted = device.acceptJoin(Buffer.from(txpk.data, 'base64'));
    } catch (err) {
      throw new CliError(`the downlink is not a join-accept this device accepts: ${(err as Error).message}`);
    }
    note(`join-accept received: DevAddr ${accepted.devAddr}`);
    return output(accepted, joinAcceptWindow(tmst, txpk.tmst), txpk);
  } finally {
    gateway.close();
  }
}
