import { Right } from '../../rpc/rights';
import { defineEvent } from '../definitions';
import { NS_TRAFFIC } from './ns';

/**
 * The Network Server's MAC layer (TTS `pkg/networkserver/mac/observability.go` and one file per
 * command): `ns.mac.<command>.request|answer|indication|confirmation|answer.accept|answer.reject`,
 * data the command's payload. Each command has the events of its exchange: the network's requests
 * (`request` enqueued, then `answer` or `answer.accept`/`answer.reject` received), the device's
 * requests (`request` received, `answer` enqueued) and indications (`indication` received,
 * `confirmation` enqueued).
 */
const MAC_TRAFFIC = { visibility: [Right.RIGHT_APPLICATION_TRAFFIC_READ] };
const macEvent = (name: string, description: string, suffix: string, what: string) =>
  defineEvent(`ns.mac.${name}.${suffix}`, `${description} ${what}`, { ...MAC_TRAFFIC, dataType: 'ttn.lorawan.v3.MACCommand' });
/** The network asks, the device answers. */
const answered = (name: string, description: string) => ({
  request: macEvent(name, description, 'request', 'request enqueued'),
  answer: macEvent(name, description, 'answer', 'answer received'),
});
/** The network asks, the device accepts or rejects. */
const accepted = (name: string, description: string) => ({
  request: macEvent(name, description, 'request', 'request enqueued'),
  accept: macEvent(name, description, 'answer.accept', 'accept received'),
  reject: macEvent(name, description, 'answer.reject', 'rejection received'),
});
/** The device asks, the network answers. */
const deviceRequest = (name: string, description: string) => ({
  request: macEvent(name, description, 'request', 'request received'),
  answer: macEvent(name, description, 'answer', 'answer enqueued'),
});
/** The device indicates, the network confirms. */
const indication = (name: string, description: string) => ({
  indication: macEvent(name, description, 'indication', 'indication received'),
  confirmation: macEvent(name, description, 'confirmation', 'confirmation enqueued'),
});
const classSwitch = (c: string) =>
  defineEvent(`ns.class.switch.${c}`, `switched to class ${c.toUpperCase()}`, { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.Class' });
export const NS_MAC_EVENTS = {
  linkCheck: deviceRequest('link_check', 'link check'),
  linkAdr: accepted('link_adr', 'link ADR'),
  dutyCycle: answered('duty_cycle', 'duty cycle'),
  rxParamSetup: accepted('rx_param_setup', 'RX parameter setup'),
  devStatus: answered('dev_status', 'device status'),
  newChannel: accepted('new_channel', 'new channel'),
  rxTimingSetup: answered('rx_timing_setup', 'RX timing setup'),
  txParamSetup: answered('tx_param_setup', 'Tx parameter setup'),
  dlChannel: accepted('dl_channel', 'downlink channel'),
  rekey: indication('rekey', 'rekey'),
  adrParamSetup: answered('adr_param_setup', 'ADR parameter setup'),
  deviceTime: deviceRequest('device_time', 'device time'),
  forceRejoin: { request: macEvent('force_rejoin', 'force rejoin', 'request', 'request enqueued') },
  rejoinParamSetup: answered('rejoin_param_setup', 'rejoin parameter setup'),
  pingSlotInfo: deviceRequest('ping_slot_info', 'ping slot info'),
  pingSlotChannel: accepted('ping_slot_channel', 'ping slot channel'),
  beaconFreq: accepted('beacon_freq', 'beacon frequency'),
  deviceMode: indication('device_mode', 'device mode'),
  reset: indication('reset', 'reset'),
  /** Reading stopped at a CID without a definition in the frame's direction (data: the CID). */
  unknown: defineEvent('ns.mac.command.unknown', 'unknown MAC command', { ...MAC_TRAFFIC, dataType: 'ttn.lorawan.v3.MACCommand' }),
  /** Reading stopped at a command cut short (data: the error). */
  parseFail: defineEvent('ns.mac.command.parse.fail', 'parse MAC command', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.ErrorDetails' }),
  /** A command that could not be applied (an answer without request, a value out of range; data: the error); the rest of the frame is ignored. */
  processFail: defineEvent('ns.mac.command.process.fail', 'process MAC command', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.ErrorDetails' }),
  /** Requests of the last downlink the uplink did not answer (data: MACCommands). */
  unanswered: defineEvent('ns.mac.command.unanswered', 'MAC command answer missing', { ...MAC_TRAFFIC, dataType: 'ttn.lorawan.v3.MACCommands' }),
  classSwitch: { a: classSwitch('a'), b: classSwitch('b'), c: classSwitch('c') },
};
