import { ValidateBy } from 'class-validator';
import { Class, RxDelay, TxSchedulePriority } from '../enums/mac';
import { Base64Bytes, Bool, Duration, EnumName, Eui64, Str, StringList, Struct, Timestamp, Uint64 } from '../json/fields';
import { Message, Messages, Required } from '../json/nested';
import { ApplicationJoinAccept, ApplicationUp } from '../messages/application-up';
import { AsNsDownlinkQueueRequest } from '../messages/downlinks';
import { EndDeviceIdentifiers, GatewayIdentifiers, Id } from '../messages/identifiers';
import { KeyEnvelope, SessionKeys } from '../messages/keys';
import { Location } from '../messages/location';
import { JoinRequest, UplinkMessage } from '../messages/traffic';
import { ApplicationDownlinks, Empty } from '../messages/responses';
import { defineRpc } from './define-rpc';

/** `NsJs.HandleJoin`'s request: TTS's JoinRequest, with what the JS cannot do without required. */
export class HandleJoinRequest extends JoinRequest {
  declare raw_payload: string;
  declare dev_addr: string;
  declare net_id: string;
  declare selected_mac_version: string;
}
for (const field of ['raw_payload', 'dev_addr', 'net_id', 'selected_mac_version']) Required()(HandleJoinRequest.prototype, field);

/** `NsJs.HandleJoin`'s answer (TTS `JoinResponse`): the join-accept and the session's keys, each wrapped for the component that holds it when a KEK is configured. */
export class JoinResponse {
  @Required() @Base64Bytes(255, 1) raw_payload!: string;
  @Required() @Message(() => SessionKeys) session_keys!: SessionKeys;
  @Duration() lifetime?: string;
  @StringList({ maxLength: 100 }) correlation_ids?: string[];
}

/** `GsIs.GetGatewayForEUI`'s request: the EUI a Semtech UDP gateway sent. */
export class GetGatewayForEUIRequest {
  @Required() @Eui64() eui!: string;
}

/** `GsIs.GetGatewayForEUI`'s answer: the gateway's identifiers (TTS `GetIdentifiersForEUI`), its frequency plans, and whether its status may set its location. */
export class GetGatewayForEUIResponse {
  @Required() @Message(() => GatewayIdentifiers) ids!: GatewayIdentifiers;
  @Required() @StringList({ maxLength: 64 }) frequency_plan_ids!: string[];
  /** Whether the gateway must authenticate (a Basics Station gateway with its API key); unset: false, as TTS. */
  @Bool() require_authenticated_connection?: boolean;
  @Bool() update_location_from_status?: boolean;
}

/** `GsIs.UpdateGatewayAntennaLocation`'s request: the location a gateway's status reported, for its first antenna. */
export class UpdateGatewayAntennaLocationRequest {
  @Required() @Message(() => GatewayIdentifiers) gateway_ids!: GatewayIdentifiers;
  @Required() @Message(() => Location) location!: Location;
}

/** `AsJs.GetAppSKey`'s answer (TTS `AppSKeyResponse`): the AppSKey, wrapped for the AS when a KEK is configured. */
export class AppSKeyResponse {
  @Required() @Message(() => KeyEnvelope) app_s_key!: KeyEnvelope;
}

/** `ttn.lorawan.v3.SessionKeyRequest`: the session keys of one join of a device, by the ID the JS gave them. */
export class SessionKeyRequest {
  @Required() @Base64Bytes(2048, 1) session_key_id!: string;
  @Required() @Eui64() dev_eui!: string;
  @Required() @Eui64() join_eui!: string;
}

/** `ttn.lorawan.v3.DownlinkPath`: the uplink token of a received copy (class A: the gateway, antenna and concentrator time it was heard at). */
export class DownlinkPath {
  @Required() @Base64Bytes(2048, 1) uplink_token!: string;
}

/** `ttn.lorawan.v3.TxRequest` (class A): where and how the NS wants a downlink sent; the GS picks the receive window. */
export class TxRequest {
  @EnumName(Class) class?: string;
  @Required() @Messages(() => DownlinkPath) downlink_paths!: DownlinkPath[];
  @EnumName(RxDelay) rx1_delay?: number;
  /** `ttn.lorawan.v3.DataRate` (`lora` or `fsk`). */
  @Struct() rx1_data_rate?: Record<string, unknown>;
  @Uint64({ min: 100000 }) rx1_frequency?: string;
  @Struct() rx2_data_rate?: Record<string, unknown>;
  @Uint64({ min: 100000 }) rx2_frequency?: string;
  @EnumName(TxSchedulePriority) priority?: string;
  @Timestamp() absolute_time?: string;
  @Str({ maxLength: 64 }) frequency_plan_id?: string;
}

/** `NsGs.ScheduleDownlink`'s answer (TTS `ScheduleDownlinkResponse`): how long until the gateway transmits, on which path, in which window. */
export class ScheduleDownlinkResponse {
  @Required() @Duration() delay!: string;
  @Required() @Message(() => DownlinkPath) downlink_path!: DownlinkPath;
  @Bool() rx1?: boolean;
  @Bool() rx2?: boolean;
}

/**
 * A gateway the NS may still try for a downlink (not in TTS: the NS reaches each gateway on its
 * own subject, so it names the gateway beside the uplink token).
 */
export class NextDownlinkPath {
  @Required() @Id() gateway_id!: string;
  @Required() @Base64Bytes(2048, 1) uplink_token!: string;
}

/** How many gateways a downlink goes on to after a refusal, at most (the copies of an uplink worth answering through). */
export const MAX_NEXT_DOWNLINK_PATHS = 32;

/** `NsGs.ScheduleDownlink`'s request: TTS's DownlinkMessage with a TxRequest. */
export class ScheduleDownlinkRequest {
  @Required() @Base64Bytes(255, 1) raw_payload!: string;
  /** The frame as the NS built it (TTS `DownlinkMessage.payload`: MHDR, FHDR with the full FCnt, FPort, FRMPayload), handed back with the TX acknowledgment. */
  @Struct({ maxBytes: 2048 }) payload?: Record<string, unknown>;
  @Message(() => EndDeviceIdentifiers) end_device_ids?: EndDeviceIdentifiers;
  @Required() @Message(() => TxRequest) request!: TxRequest;
  @StringList({ maxLength: 100 }) correlation_ids?: string[];
  @Base64Bytes(2048) session_key_id?: string;
  /**
   * Internal (never published): the gateways of the downlink path after this one, best first. The
   * GS hands them back, with the frame and the request, in a refusing gateway's TX acknowledgment,
   * so whichever NS replica receives it sends the same frame through the next one.
   */
  @Messages(() => NextDownlinkPath, { maxItems: MAX_NEXT_DOWNLINK_PATHS }) next_paths?: NextDownlinkPath[];
}

/** A join-accept as the NS hands it to the AS: with the AppSKey the JS wrapped for the AS (never published). */
export class NsApplicationJoinAccept extends ApplicationJoinAccept {
  @Message(() => KeyEnvelope) app_s_key?: KeyEnvelope;
}

/** An ApplicationUp from the NS: a join-accept may carry its AppSKey. */
export class NsApplicationUp extends ApplicationUp {
  declare join_accept?: NsApplicationJoinAccept;
}
Message(() => NsApplicationJoinAccept)(NsApplicationUp.prototype, 'join_accept');

/** `NsAs.HandleUplink`'s request (TTS `NsAsHandleUplinkRequest`). */
export class NsAsHandleUplinkRequest {
  @Required() @Messages(() => NsApplicationUp) application_ups!: NsApplicationUp[];
}

/** TTS `TxAcknowledgment.Result` names. */
export const TX_ACK_RESULTS = [
  'SUCCESS',
  'UNKNOWN_ERROR',
  'TOO_LATE',
  'TOO_EARLY',
  'COLLISION_PACKET',
  'COLLISION_BEACON',
  'TX_FREQ',
  'TX_POWER',
  'GPS_UNLOCKED',
] as const;

/**
 * The downlink a TX acknowledgment is about, as the GS got it from the NS (its device, frame and
 * correlation IDs); while gateways are left to try (`next_paths`), also its bytes and TxRequest
 * (TTS's DownlinkMessage has both), so the NS can send it on without remembering it.
 */
export class AcknowledgedDownlink {
  @Message(() => EndDeviceIdentifiers) end_device_ids?: EndDeviceIdentifiers;
  /** The frame as the NS built it (ScheduleDownlinkRequest's `payload`). */
  @Struct({ maxBytes: 2048 }) payload?: Record<string, unknown>;
  @StringList({ maxLength: 100 }) correlation_ids?: string[];
  @Base64Bytes(2048) session_key_id?: string;
  @Base64Bytes(255, 1) raw_payload?: string;
  @Message(() => TxRequest) request?: TxRequest;
  /** Internal (never published): ScheduleDownlinkRequest's `next_paths`. */
  @Messages(() => NextDownlinkPath, { maxItems: MAX_NEXT_DOWNLINK_PATHS }) next_paths?: NextDownlinkPath[];
}

/** `GsNs.ReportTxAcknowledgment`'s request (TTS `GatewayTxAcknowledgment`): the gateway's answer to a downlink. */
export class TxAcknowledgmentRequest {
  @Required()
  @ValidateBy({
    name: 'tx_ack_result',
    validator: {
      validate: (v) => v === undefined || (TX_ACK_RESULTS as readonly unknown[]).includes(v),
      defaultMessage: () => 'value must be a TxAcknowledgment result',
    },
  })
  result!: string;
  @Required() @Message(() => AcknowledgedDownlink) downlink_message!: AcknowledgedDownlink;
}

/** The RPCs the GS replica a gateway is connected to serves on the gateway's own subject (`gatewayDownlinkSubject`). */
export const PER_GATEWAY_RPCS: ReadonlySet<string> = new Set(['NsGs.ScheduleDownlink', 'GsGs.GetGatewayConnectionStats']);

/** The per-gateway subject of an RPC of `PER_GATEWAY_RPCS` (`NsGs.ScheduleDownlink`, …), served by the GS replica a gateway is connected to. */
export function gatewayDownlinkSubject(subject: string, gatewayId: string): string {
  return `${subject}.${gatewayId}`;
}

/**
 * The data plane's internal RPCs, named by caller and callee as in TTS (`NsJs`, `GsNs`, `NsGs`,
 * `NsAs`, `AsJs`): component to component over the transport, never bound to HTTP.
 */
export function dataplaneRpcs() {
  return {
    /** The GS resolves a gateway's EUI to its identifiers and frequency plans (TTS `GetIdentifiersForEUI` plus the gateway's plans). */
    'GsIs.GetGatewayForEUI': defineRpc({
      service: 'GsIs',
      method: 'GetGatewayForEUI',
      component: 'is',
      http: [],
      rights: [],
      unauthenticated: true,
      request: GetGatewayForEUIRequest,
      response: GetGatewayForEUIResponse,
    }),
    /**
     * The GS sets a gateway's first antenna's location from its status (TTS: the GS updates the
     * gateway's `antennas`); the IS does so only while the gateway's `update_location_from_status` is set.
     */
    'GsIs.UpdateGatewayAntennaLocation': defineRpc({
      service: 'GsIs',
      method: 'UpdateGatewayAntennaLocation',
      component: 'is',
      http: [],
      rights: [],
      unauthenticated: true,
      request: UpdateGatewayAntennaLocationRequest,
      response: Empty,
    }),
    /** The GS hands a received uplink to the NS. */
    'GsNs.HandleUplink': defineRpc({
      service: 'GsNs',
      method: 'HandleUplink',
      component: 'ns',
      http: [],
      rights: [],
      unauthenticated: true,
      request: UplinkMessage,
      response: Empty,
    }),
    /** The GS reports a gateway's TX_ACK of a downlink the NS scheduled (TTS `GsNs.ReportTxAcknowledgment`). */
    'GsNs.ReportTxAcknowledgment': defineRpc({
      service: 'GsNs',
      method: 'ReportTxAcknowledgment',
      component: 'ns',
      http: [],
      rights: [],
      unauthenticated: true,
      request: TxAcknowledgmentRequest,
      response: Empty,
    }),
    /** The AS fetches the AppSKey of a session it does not have (TTS `AsJs.GetAppSKey`), wrapped for it. */
    'AsJs.GetAppSKey': defineRpc({
      service: 'AsJs',
      method: 'GetAppSKey',
      component: 'js',
      http: [],
      rights: [],
      unauthenticated: true,
      request: SessionKeyRequest,
      response: AppSKeyResponse,
    }),
    /** The NS asks the GS replica holding a gateway's downlink path (on the gateway's own subject, `gatewayDownlinkSubject`) to send a downlink. */
    'NsGs.ScheduleDownlink': defineRpc({
      service: 'NsGs',
      method: 'ScheduleDownlink',
      component: 'gs',
      http: [],
      rights: [],
      unauthenticated: true,
      request: ScheduleDownlinkRequest,
      response: ScheduleDownlinkResponse,
    }),
    /** The NS hands application messages (join-accepts, data uplinks with the FRMPayload still encrypted) to the AS. */
    'NsAs.HandleUplink': defineRpc({
      service: 'NsAs',
      method: 'HandleUplink',
      component: 'as',
      http: [],
      rights: [],
      unauthenticated: true,
      request: NsAsHandleUplinkRequest,
      response: Empty,
    }),
    /**
     * The AS adds application downlinks, encrypted and counted for a session, to the NS's queue of
     * that session (the device's current or pending one); refused with DownlinkQueueOperationErrorDetails
     * when their session or FCnt does not fit, so the AS can encrypt them again (TTS `AsNs.DownlinkQueuePush`).
     */
    'AsNs.DownlinkQueuePush': defineRpc({
      service: 'AsNs',
      method: 'DownlinkQueuePush',
      component: 'ns',
      http: [],
      rights: [],
      unauthenticated: true,
      request: AsNsDownlinkQueueRequest,
      response: Empty,
    }),
    /** As Push, after emptying both sessions' queues (TTS `AsNs.DownlinkQueueReplace`); no downlinks: the queues cleared. */
    'AsNs.DownlinkQueueReplace': defineRpc({
      service: 'AsNs',
      method: 'DownlinkQueueReplace',
      component: 'ns',
      http: [],
      rights: [],
      unauthenticated: true,
      request: AsNsDownlinkQueueRequest,
      response: Empty,
    }),
    /** The NS's queue of the device: the current session's downlinks, then the pending session's, as the AS encrypted them (TTS `AsNs.DownlinkQueueList`). */
    'AsNs.DownlinkQueueList': defineRpc({
      service: 'AsNs',
      method: 'DownlinkQueueList',
      component: 'ns',
      http: [],
      rights: [],
      unauthenticated: true,
      request: EndDeviceIdentifiers,
      response: ApplicationDownlinks,
    }),
    /** The NS hands a join-request to the JS: a join-accept and session keys, or the refusal. */
    'NsJs.HandleJoin': defineRpc({
      service: 'NsJs',
      method: 'HandleJoin',
      component: 'js',
      http: [],
      rights: [],
      unauthenticated: true,
      request: HandleJoinRequest,
      response: JoinResponse,
    }),
  };
}
