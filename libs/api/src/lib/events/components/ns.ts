import { Right } from '../../rpc/rights';
import { defineEvent, deviceRegistryEvents } from '../definitions';

/** Network Server (TTS `pkg/networkserver/observability.go`, plus the seed's `ns.up.join.forward` and `ns.up.merge_metadata`; identifiers: the device's). */
export const NS_TRAFFIC = { visibility: [Right.RIGHT_APPLICATION_TRAFFIC_READ], propagateToParent: true };
export const NS_EVENTS = {
  endDevice: deviceRegistryEvents('ns.end_device', 'Network Server'),
  joinReceive: defineEvent('ns.up.join.receive', 'receive join-request', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.UplinkMessage', trafficData: true }),
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
  joinProcess: defineEvent('ns.up.join.process', 'successfully processed join-request', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.UplinkMessage',
    trafficData: true,
  }),
  joinScheduleAttempt: defineEvent('ns.down.join.schedule.attempt', 'schedule join-accept for transmission on Gateway Server', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.DownlinkMessage',
    trafficData: true,
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
  dataReceive: defineEvent('ns.up.data.receive', 'receive data message', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.UplinkMessage', trafficData: true }),
  dataDrop: defineEvent('ns.up.data.drop', 'drop data message', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.ErrorDetails' }),
  /** The device stored after a data uplink; data: the uplink with every copy's metadata. */
  dataProcess: defineEvent('ns.up.data.process', 'successfully processed data message', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.UplinkMessage',
    trafficData: true,
  }),
  /** The uplink handed to the Application Server, which accepted it; data: the ApplicationUp. */
  dataForward: defineEvent('ns.up.data.forward', 'forward data message to Application Server', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.ApplicationUp',
    trafficData: true,
  }),
  /** The gateway's TX acknowledgment of a downlink: sent (data: none), or not (data: the error). */
  transmissionSuccess: defineEvent('ns.down.transmission.success', 'successfully transmitted downlink', { ...NS_TRAFFIC }),
  transmissionFail: defineEvent('ns.down.transmission.fail', 'failed to transmit downlink', { ...NS_TRAFFIC, dataType: 'ttn.lorawan.v3.ErrorDetails' }),
  dataScheduleAttempt: defineEvent('ns.down.data.schedule.attempt', 'schedule data downlink for transmission on Gateway Server', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.DownlinkMessage',
    trafficData: true,
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
  joinForward: defineEvent('ns.up.join.forward', 'forward join-accept to Application Server', {
    ...NS_TRAFFIC,
    dataType: 'ttn.lorawan.v3.ApplicationUp',
    trafficData: true,
  }),
};
