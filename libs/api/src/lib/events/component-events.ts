import { Right } from '../rpc/rights';
import { apiKeyEvents, collaboratorEvents, defineEvent, deviceRegistryEvents, entityRegistryEvents } from './definitions';

/**
 * The events each component emits, defined once per component (names, visibility and data as TTS,
 * wire contract §7.3). The events service validates `names` filters against these.
 */

/** Identity Server. */
export const IS_EVENTS = {
  endDevice: deviceRegistryEvents('end_device', 'Identity Server'),
  application: entityRegistryEvents('application', [Right.RIGHT_APPLICATION_INFO], { restore: true }),
  applicationApiKey: apiKeyEvents('application', [Right.RIGHT_APPLICATION_SETTINGS_API_KEYS]),
  applicationCollaborator: collaboratorEvents('application', [Right.RIGHT_APPLICATION_SETTINGS_COLLABORATORS, Right.RIGHT_USER_APPLICATIONS_LIST]),
  gateway: entityRegistryEvents('gateway', [Right.RIGHT_GATEWAY_INFO], { restore: true }),
  gatewayApiKey: apiKeyEvents('gateway', [Right.RIGHT_GATEWAY_SETTINGS_API_KEYS]),
  gatewayCollaborator: collaboratorEvents('gateway', [Right.RIGHT_GATEWAY_SETTINGS_COLLABORATORS, Right.RIGHT_USER_GATEWAYS_LIST]),
  user: entityRegistryEvents('user', [Right.RIGHT_USER_INFO]),
  userApiKey: apiKeyEvents('user', [Right.RIGHT_USER_SETTINGS_API_KEYS]),
  /** OAuth clients (TTS `client_registry.go`): no data but the update's field-mask paths, never the secret. */
  client: entityRegistryEvents('client', [Right.RIGHT_CLIENT_INFO], { restore: true }),
  organization: entityRegistryEvents('organization', [Right.RIGHT_ORGANIZATION_INFO], { restore: true }),
  organizationApiKey: apiKeyEvents('organization', [Right.RIGHT_ORGANIZATION_SETTINGS_API_KEYS]),
  clientCollaborator: collaboratorEvents('client', [Right.RIGHT_CLIENT_SETTINGS_COLLABORATORS, Right.RIGHT_USER_CLIENTS_LIST]),
  /** An organization's members (TTS `organization_access.go`). */
  organizationCollaborator: collaboratorEvents('organization', [Right.RIGHT_ORGANIZATION_SETTINGS_MEMBERS, Right.RIGHT_USER_ORGANIZATIONS_LIST]),
};

/** Join Server. */
export const JS_EVENTS = {
  endDevice: deviceRegistryEvents('js.end_device', 'Join Server'),
  /** A join-request accepted (TTS: no data). */
  joinAccept: defineEvent('js.join.accept', 'accept join-request', { visibility: [Right.RIGHT_APPLICATION_TRAFFIC_READ], propagateToParent: true }),
  /** A join-request of a known device refused; data: the error. */
  joinReject: defineEvent('js.join.reject', 'reject join-request', {
    visibility: [Right.RIGHT_APPLICATION_TRAFFIC_READ],
    propagateToParent: true,
    dataType: 'ttn.lorawan.v3.ErrorDetails',
  }),
};

/** Gateway Server (TTS `pkg/gatewayserver/observability.go`; identifiers: the gateway's). */
const GATEWAY_TRAFFIC = [Right.RIGHT_GATEWAY_TRAFFIC_READ];
export const GS_EVENTS = {
  connect: defineEvent('gs.gateway.connect', 'connect gateway', {
    visibility: [Right.RIGHT_GATEWAY_LINK, Right.RIGHT_GATEWAY_STATUS_READ],
    dataType: 'ttn.lorawan.v3.GatewayConnectionStats',
  }),
  disconnect: defineEvent('gs.gateway.disconnect', 'disconnect gateway', {
    visibility: [Right.RIGHT_GATEWAY_LINK, Right.RIGHT_GATEWAY_STATUS_READ],
    dataType: 'ttn.lorawan.v3.ErrorDetails',
  }),
  statusReceive: defineEvent('gs.status.receive', 'receive gateway status', {
    visibility: [Right.RIGHT_GATEWAY_STATUS_READ],
    dataType: 'ttn.lorawan.v3.GatewayStatus',
  }),
  upReceive: defineEvent('gs.up.receive', 'receive uplink message', { visibility: GATEWAY_TRAFFIC, dataType: 'ttn.lorawan.v3.GatewayUplinkMessage' }),
  upDrop: defineEvent('gs.up.drop', 'drop uplink message', { visibility: GATEWAY_TRAFFIC, dataType: 'ttn.lorawan.v3.ErrorDetails' }),
  upForward: defineEvent('gs.up.forward', 'forward uplink message', { visibility: GATEWAY_TRAFFIC, dataType: 'google.protobuf.Value' }),
  downScheduleAttempt: defineEvent('gs.down.schedule.attempt', 'schedule downlink for transmission', {
    visibility: GATEWAY_TRAFFIC,
    dataType: 'ttn.lorawan.v3.DownlinkMessage',
  }),
  downScheduleFail: defineEvent('gs.down.schedule.fail', 'fail to schedule downlink for transmission', {
    visibility: GATEWAY_TRAFFIC,
    dataType: 'ttn.lorawan.v3.ErrorDetails',
  }),
  downSend: defineEvent('gs.down.send', 'send downlink message', { visibility: GATEWAY_TRAFFIC, dataType: 'ttn.lorawan.v3.DownlinkMessage' }),
  downTxSuccess: defineEvent('gs.down.tx.success', 'transmit downlink message successful', { visibility: GATEWAY_TRAFFIC }),
  downTxFail: defineEvent('gs.down.tx.fail', 'transmit downlink message failure', { visibility: GATEWAY_TRAFFIC, dataType: 'google.protobuf.Value' }),
  txAckForward: defineEvent('gs.txack.forward', 'forward transmission acknowledgement', { visibility: GATEWAY_TRAFFIC }),
  txAckDrop: defineEvent('gs.txack.drop', 'drop transmission acknowledgement', { visibility: GATEWAY_TRAFFIC, dataType: 'ttn.lorawan.v3.ErrorDetails' }),
  txAckReceive: defineEvent('gs.txack.receive', 'receive transmission acknowledgement', {
    visibility: GATEWAY_TRAFFIC,
    dataType: 'ttn.lorawan.v3.TxAcknowledgment',
  }),
};

/** Network Server (TTS `pkg/networkserver/observability.go`, plus the seed's `ns.up.join.forward` and `ns.up.merge_metadata`; identifiers: the device's). */
const NS_TRAFFIC = { visibility: [Right.RIGHT_APPLICATION_TRAFFIC_READ], propagateToParent: true };
export const NS_EVENTS = {
  endDevice: deviceRegistryEvents('ns.end_device', 'Network Server'),
  joinReceive: defineEvent('ns.up.join.receive', 'receive join-request', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.UplinkMessage' }),
  joinDrop: defineEvent('ns.up.join.drop', 'drop join-request', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.ErrorDetails' }),
  joinClusterAttempt: defineEvent('ns.up.join.cluster.attempt', 'send join-request to cluster-local Join Server', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.JoinRequest',
  }),
  joinClusterSuccess: defineEvent('ns.up.join.cluster.success', 'join-request to cluster-local Join Server succeeded', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.JoinResponse',
  }),
  joinClusterFail: defineEvent('ns.up.join.cluster.fail', 'join-request to cluster-local Join Server failed', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.ErrorDetails',
  }),
  /** The seed's: the metadata of every gateway's copy merged; data: a value holding the number of gateways. */
  mergeMetadata: defineEvent('ns.up.merge_metadata', 'merge metadata of uplink copies', { ...NS_TRAFFIC, dataType: 'google.protobuf.Value' }),
  joinProcess: defineEvent('ns.up.join.process', 'successfully processed join-request', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.UplinkMessage' }),
  joinScheduleAttempt: defineEvent('ns.down.join.schedule.attempt', 'schedule join-accept for transmission on Gateway Server', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.DownlinkMessage',
  }),
  joinScheduleSuccess: defineEvent('ns.down.join.schedule.success', 'successfully scheduled join-accept for transmission on Gateway Server', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.ScheduleDownlinkResponse',
  }),
  joinScheduleFail: defineEvent('ns.down.join.schedule.fail', 'failed to schedule join-accept for transmission on Gateway Server', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.ErrorDetails',
  }),
  /** A data uplink matched to a device and session (before the merge window ends: the first copy's metadata). */
  dataReceive: defineEvent('ns.up.data.receive', 'receive data message', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.UplinkMessage' }),
  dataDrop: defineEvent('ns.up.data.drop', 'drop data message', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.ErrorDetails' }),
  /** The device stored after a data uplink; data: the uplink with every copy's metadata. */
  dataProcess: defineEvent('ns.up.data.process', 'successfully processed data message', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.UplinkMessage' }),
  /** The uplink handed to the Application Server, which accepted it; data: the ApplicationUp. */
  dataForward: defineEvent('ns.up.data.forward', 'forward data message to Application Server', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.ApplicationUp' }),
  /** The gateway's TX acknowledgment of a downlink: sent (data: none), or not (data: the error). */
  transmissionSuccess: defineEvent('ns.down.transmission.success', 'successfully transmitted downlink', { ...NS_TRAFFIC }),
  transmissionFail: defineEvent('ns.down.transmission.fail', 'failed to transmit downlink', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.ErrorDetails' }),
  dataScheduleAttempt: defineEvent('ns.down.data.schedule.attempt', 'schedule data downlink for transmission on Gateway Server', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.DownlinkMessage',
  }),
  dataScheduleSuccess: defineEvent('ns.down.data.schedule.success', 'successfully scheduled data downlink for transmission on Gateway Server', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.ScheduleDownlinkResponse',
  }),
  dataScheduleFail: defineEvent('ns.down.data.schedule.fail', 'failed to schedule data downlink for transmission on Gateway Server', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.ErrorDetails',
  }),
  /** The seed's: the join-accept was forwarded to the Application Server and accepted (TTS `ns.up.join.accept.forward`). */
  joinForward: defineEvent('ns.up.join.forward', 'forward join-accept to Application Server', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.ApplicationUp' }),
};

/** Application Server. */
const TRAFFIC_READ = [Right.RIGHT_APPLICATION_TRAFFIC_READ];
const ERROR_DETAILS = 'ttn.lorawan.v3.ErrorDetails';
const APPLICATION_DOWNLINK = 'ttn.lorawan.v3.ApplicationDownlink';
const APPLICATION_UP = 'ttn.lorawan.v3.ApplicationUp';
const APPLICATION_UPLINK = 'ttn.lorawan.v3.ApplicationUplink';

/** `as.down.data.<report>.forward`: one of the NS's reports on a downlink, handed to the integrations (TTS `observability.go`). */
function downlinkReportForward(report: string, description: string) {
  return defineEvent(`as.down.data.${report}.forward`, description, { visibility: TRAFFIC_READ, propagateToParent: true, dataType: APPLICATION_UP });
}

export const AS_EVENTS = {
  endDevice: deviceRegistryEvents('as.end_device', 'Application Server'),
  /** An uplink received (simulated or real); device subscribers only, as TTS. */
  upDataReceive: defineEvent('as.up.data.receive', 'receive uplink data message', { visibility: TRAFFIC_READ, dataType: APPLICATION_UPLINK }),
  /** An uplink dropped (unknown device, processing error); data: the error. */
  upDataDrop: defineEvent('as.up.data.drop', 'drop uplink data message', { visibility: TRAFFIC_READ, propagateToParent: true, dataType: ERROR_DETAILS }),
  /** An uplink handed to the integrations (webhooks); data: the ApplicationUp. */
  upDataForward: defineEvent('as.up.data.forward', 'forward uplink data message', {
    visibility: TRAFFIC_READ,
    propagateToParent: true,
    dataType: APPLICATION_UP,
  }),
  /** A join-accept received; device subscribers only, as TTS. */
  upJoinReceive: defineEvent('as.up.join.receive', 'receive join-accept message', { visibility: TRAFFIC_READ, dataType: APPLICATION_UP }),
  /** A join-accept dropped; data: the error. */
  upJoinDrop: defineEvent('as.up.join.drop', 'drop join-accept message', { visibility: TRAFFIC_READ, propagateToParent: true, dataType: ERROR_DETAILS }),
  /** A join-accept handed to the integrations; data: the ApplicationUp. */
  upJoinForward: defineEvent('as.up.join.forward', 'forward join-accept message', {
    visibility: TRAFFIC_READ,
    propagateToParent: true,
    dataType: APPLICATION_UP,
  }),
  /** One failed webhook request (each attempt, and the final give-up); data: the error. */
  webhookFail: defineEvent('as.webhook.fail', 'fail to send webhook', { visibility: TRAFFIC_READ, propagateToParent: true, dataType: ERROR_DETAILS }),
  /** Uplink decoding failed (the uplink is still forwarded, without `decoded_payload`). */
  upDataDecodeFail: defineEvent('as.up.data.decode.fail', 'decode uplink data message failure', {
    visibility: TRAFFIC_READ,
    propagateToParent: true,
    dataType: ERROR_DETAILS,
  }),
  /** A downlink received for the queue (data: the plaintext downlink). */
  downDataReceive: defineEvent('as.down.data.receive', 'receive downlink data message', {
    visibility: TRAFFIC_READ,
    propagateToParent: true,
    dataType: APPLICATION_DOWNLINK,
  }),
  /** A downlink queued (data: the encrypted downlink); device subscribers only, as TTS. */
  downDataForward: defineEvent('as.down.data.forward', 'forward downlink data message', { visibility: TRAFFIC_READ, dataType: APPLICATION_DOWNLINK }),
  /** A downlink dropped (data: the error). */
  downDataDrop: defineEvent('as.down.data.drop', 'drop downlink data message', { visibility: TRAFFIC_READ, propagateToParent: true, dataType: ERROR_DETAILS }),
  /** Decoding a downlink the NS reported failed (data: the error); it still goes on, without `decoded_payload`. */
  downDataDecodeFail: defineEvent('as.down.data.decode.fail', 'decode downlink data message failure', {
    visibility: TRAFFIC_READ,
    propagateToParent: true,
    dataType: ERROR_DETAILS,
  }),
  /** Decoding a downlink gave warnings (data: the downlink). */
  downDataDecodeWarning: defineEvent('as.down.data.decode.warning', 'decode downlink data message warning', {
    visibility: TRAFFIC_READ,
    propagateToParent: true,
    dataType: APPLICATION_DOWNLINK,
  }),
  /** The NS's reports on downlinks handed to the integrations (data: the ApplicationUp, FRMPayload decrypted). */
  downDataQueueInvalidatedForward: downlinkReportForward('queue.invalidated', 'forward downlink queue invalidated'),
  downDataFailedForward: downlinkReportForward('failed', 'forward downlink failed'),
  downDataSentForward: downlinkReportForward('sent', 'forward downlink sent'),
  downDataAckForward: downlinkReportForward('ack', 'forward downlink acknowledged'),
  downDataNackForward: downlinkReportForward('nack', 'forward downlink not acknowledged'),
};

/** The events service itself: the first message of every stream (no visibility: always shown). */
export const EVENTS_EVENTS = {
  streamStart: defineEvent('events.stream.start', 'stream start', { visibility: [], dataType: 'google.protobuf.Value' }),
};

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
