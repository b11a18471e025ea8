import { Right } from '../../rpc/rights';
import { defineEvent } from '../definitions';

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
  upReceive: defineEvent('gs.up.receive', 'receive uplink message', {
    visibility: GATEWAY_TRAFFIC,
    dataType: 'ttn.lorawan.v3.GatewayUplinkMessage',
    trafficData: true,
  }),
  upDrop: defineEvent('gs.up.drop', 'drop uplink message', { visibility: GATEWAY_TRAFFIC, dataType: 'ttn.lorawan.v3.ErrorDetails' }),
  upForward: defineEvent('gs.up.forward', 'forward uplink message', { visibility: GATEWAY_TRAFFIC, dataType: 'google.protobuf.Value' }),
  downScheduleAttempt: defineEvent('gs.down.schedule.attempt', 'schedule downlink for transmission', {
    visibility: GATEWAY_TRAFFIC,
    dataType: 'ttn.lorawan.v3.DownlinkMessage',
    trafficData: true,
  }),
  downScheduleFail: defineEvent('gs.down.schedule.fail', 'fail to schedule downlink for transmission', {
    visibility: GATEWAY_TRAFFIC,
    dataType: 'ttn.lorawan.v3.ErrorDetails',
  }),
  downSend: defineEvent('gs.down.send', 'send downlink message', {
    visibility: GATEWAY_TRAFFIC,
    dataType: 'ttn.lorawan.v3.DownlinkMessage',
    trafficData: true,
  }),
  downTxSuccess: defineEvent('gs.down.tx.success', 'transmit downlink message successful', { visibility: GATEWAY_TRAFFIC }),
  downTxFail: defineEvent('gs.down.tx.fail', 'transmit downlink message failure', { visibility: GATEWAY_TRAFFIC, dataType: 'google.protobuf.Value' }),
  txAckForward: defineEvent('gs.txack.forward', 'forward transmission acknowledgement', { visibility: GATEWAY_TRAFFIC }),
  txAckDrop: defineEvent('gs.txack.drop', 'drop transmission acknowledgement', { visibility: GATEWAY_TRAFFIC, dataType: 'ttn.lorawan.v3.ErrorDetails' }),
  txAckReceive: defineEvent('gs.txack.receive', 'receive transmission acknowledgement', {
    visibility: GATEWAY_TRAFFIC,
    dataType: 'ttn.lorawan.v3.TxAcknowledgment',
    trafficData: true,
  }),
};
