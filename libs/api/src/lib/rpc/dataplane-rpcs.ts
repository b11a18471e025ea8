import { Required } from '../json/nested';
import { JoinRequest } from '../messages/traffic';
import { defineRpc } from './define-rpc';

/** `NsJs.HandleJoin`'s request: TTS's JoinRequest, with what the JS cannot do without required. */
export class HandleJoinRequest extends JoinRequest {
  declare raw_payload: string;
  declare dev_addr: string;
  declare net_id: string;
  declare selected_mac_version: string;
}
for (const field of ['raw_payload', 'dev_addr', 'net_id', 'selected_mac_version']) Required()(HandleJoinRequest.prototype, field);

/**
 * The data plane's internal RPCs, named by caller and callee as in TTS (`NsJs`, `GsNs`, `NsGs`,
 * `NsAs`, `AsJs`): component to component over the transport, never bound to HTTP.
 */
export function dataplaneRpcs() {
  return {
    /** The NS hands a join-request to the JS: a join-accept and session keys, or the refusal. */
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
