import { Right } from '../../rpc/rights';
import { defineEvent, deviceRegistryEvents } from '../definitions';

/** Application Server. */
const TRAFFIC_READ = [Right.RIGHT_APPLICATION_TRAFFIC_READ];
const ERROR_DETAILS = 'ttn.lorawan.v3.ErrorDetails';
const APPLICATION_DOWNLINK = 'ttn.lorawan.v3.ApplicationDownlink';
const APPLICATION_UP = 'ttn.lorawan.v3.ApplicationUp';
const APPLICATION_UPLINK = 'ttn.lorawan.v3.ApplicationUplink';
const PUBSUB_IDS = 'ttn.lorawan.v3.ApplicationPubSubIdentifiers';

/** `as.down.data.<report>.forward`: one of the NS's reports on a downlink, handed to the integrations (TTS `observability.go`). */
function downlinkReportForward(report: string, description: string) {
  return defineEvent(`as.down.data.${report}.forward`, description, {
    visibility: TRAFFIC_READ,
    propagateToParent: true,
    dataType: APPLICATION_UP,
    trafficData: true,
  });
}

export const AS_EVENTS = {
  endDevice: deviceRegistryEvents('as.end_device', 'Application Server'),
  /** An uplink received (simulated or real); device subscribers only, as TTS. */
  upDataReceive: defineEvent('as.up.data.receive', 'receive uplink data message', {
    visibility: TRAFFIC_READ,
    dataType: APPLICATION_UPLINK,
    trafficData: true,
  }),
  /** An uplink dropped (unknown device, processing error); data: the error. */
  upDataDrop: defineEvent('as.up.data.drop', 'drop uplink data message', { visibility: TRAFFIC_READ, propagateToParent: true, dataType: ERROR_DETAILS }),
  /** An uplink handed to the integrations (webhooks); data: the ApplicationUp. */
  upDataForward: defineEvent('as.up.data.forward', 'forward uplink data message', {
    visibility: TRAFFIC_READ,
    propagateToParent: true,
    dataType: APPLICATION_UP,
    trafficData: true,
  }),
  /** A join-accept received; device subscribers only, as TTS. */
  upJoinReceive: defineEvent('as.up.join.receive', 'receive join-accept message', { visibility: TRAFFIC_READ, dataType: APPLICATION_UP, trafficData: true }),
  /** A join-accept dropped; data: the error. */
  upJoinDrop: defineEvent('as.up.join.drop', 'drop join-accept message', { visibility: TRAFFIC_READ, propagateToParent: true, dataType: ERROR_DETAILS }),
  /** A join-accept handed to the integrations; data: the ApplicationUp. */
  upJoinForward: defineEvent('as.up.join.forward', 'forward join-accept message', {
    visibility: TRAFFIC_READ,
    propagateToParent: true,
    dataType: APPLICATION_UP,
    trafficData: true,
  }),
  /** One failed webhook request (each attempt, and the final give-up); data: the error. */
  webhookFail: defineEvent('as.webhook.fail', 'fail to send webhook', { visibility: TRAFFIC_READ, propagateToParent: true, dataType: ERROR_DETAILS }),
  /** A Pub/Sub set or deleted through the registry (data: its identifiers). */
  pubsubSet: defineEvent('as.pubsub.set', 'set pub/sub', { visibility: [Right.RIGHT_APPLICATION_SETTINGS_BASIC], dataType: PUBSUB_IDS }),
  pubsubDelete: defineEvent('as.pubsub.delete', 'delete pub/sub', { visibility: [Right.RIGHT_APPLICATION_SETTINGS_BASIC], dataType: PUBSUB_IDS }),
  /** A Pub/Sub's connection to its broker opened or closed by an AS replica (data: its identifiers). */
  pubsubStart: defineEvent('as.pubsub.start', 'start pub/sub', { visibility: TRAFFIC_READ, dataType: PUBSUB_IDS }),
  pubsubStop: defineEvent('as.pubsub.stop', 'stop pub/sub', { visibility: TRAFFIC_READ, dataType: PUBSUB_IDS }),
  /** A Pub/Sub failed: connect refused, broker lost, publish error, bad downlink payload (data: the error, never a secret). */
  pubsubFail: defineEvent('as.pubsub.fail', 'fail pub/sub', { visibility: TRAFFIC_READ, dataType: ERROR_DETAILS }),
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
    trafficData: true,
  }),
  /** A downlink queued (data: the encrypted downlink); device subscribers only, as TTS. */
  downDataForward: defineEvent('as.down.data.forward', 'forward downlink data message', {
    visibility: TRAFFIC_READ,
    dataType: APPLICATION_DOWNLINK,
    trafficData: true,
  }),
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
    trafficData: true,
  }),
  /** The NS's reports on downlinks handed to the integrations (data: the ApplicationUp, FRMPayload decrypted). */
  downDataQueueInvalidatedForward: downlinkReportForward('queue.invalidated', 'forward downlink queue invalidated'),
  downDataFailedForward: downlinkReportForward('failed', 'forward downlink failed'),
  downDataSentForward: downlinkReportForward('sent', 'forward downlink sent'),
  downDataAckForward: downlinkReportForward('ack', 'forward downlink acknowledged'),
  downDataNackForward: downlinkReportForward('nack', 'forward downlink not acknowledged'),
};
