import { Base64Bytes, Eui64 } from '../json/fields';
import { Required } from '../json/nested';
import { JoinRequest, UplinkMessage } from '../messages/traffic';
import { defineRpc } from './define-rpc';

/** `NsJs.HandleJoin`'s request: TTS's JoinRequest, with what the JS cannot do without required. */
export class HandleJoinRequest extends JoinRequest {
  declare raw_payload: string;
  declare dev_addr: string;
  declare net_id: string;
  declare selected_mac_version: string;
}
for (const field of ['raw_payload', 'dev_addr', 'net_id', 'selected_mac_version']) Required()(HandleJoinRequest.prototype, field);

/** `GsIs.GetGatewayForEUI`'s request: the EUI a Semtech UDP gateway sent. */
export class GetGatewayForEUIRequest {
  @Required() @Eui64() eui!: string;
}

/** `ttn.lorawan.v3.SessionKeyRequest`: the session keys of one join of a device, by the ID the JS gave them. */
export class SessionKeyRequest {
  @Required() @Base64Bytes(2048, 1) session_key_id!: string;
  @Required() @Eui64() dev_eui!: string;
  @Required() @Eui64() join_eui!: string;
}

/**
 * The data plane's internal RPCs, named by caller and callee as in TTS (`NsJs`, `GsNs`, `NsGs`,
 * `NsAs`, `AsJs`): component to component over the transport, never bound to HTTP.
 */
export function dataplaneRpcs() {
  return {
    /** The NS hands a join-request to the JS: a join-accept and session keys, or the refusal. */
    /** The GS resolves a gateway's EUI to its identifiers and frequency plans (TTS `GetIdentifiersForEUI` plus the gateway's plans). */
    'GsIs.GetGatewayForEUI': defineRpc({
      service: 'GsIs',
      method: 'GetGatewayForEUI',
      component: 'is',
      http: [],
      rights: [],
      unauthenticated: true,
      request: GetGatewayForEUIRequest,
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
    }),
    'NsJs.HandleJoin': defineRpc({
      service: 'NsJs',
      method: 'HandleJoin',
      component: 'js',
      http: [],
      rights: [],
      unauthenticated: true,
      request: HandleJoinRequest,
    }),
  };
}
