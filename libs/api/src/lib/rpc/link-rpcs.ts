import { ApplicationIdentifiers } from '../messages/identifiers';
import { GetApplicationLinkRequest, SetApplicationLinkRequest } from '../messages/application-link';
import { Right } from './rights';
import type { RpcDefinition } from './rpc-table';

const SERVICE = 'As';
const LINK_PATH = '/as/applications/{application_ids.application_id}/link';

function asRpc<Req extends object>(def: Omit<RpcDefinition<Req>, 'subject' | 'component' | 'service'>): RpcDefinition<Req> {
  return { ...def, service: SERVICE, component: 'as', subject: `rpc.as.${SERVICE}.${def.method}` };
}

/**
 * The AS's application link (TTS `applicationserver.proto` service `As`, `grpc.go`): Get, Set
 * (upsert of the masked paths) and Delete, each needing `RIGHT_APPLICATION_SETTINGS_BASIC`.
 */
export function linkRpcs() {
  const rights = [Right.RIGHT_APPLICATION_SETTINGS_BASIC];
  return {
    'As.GetLink': asRpc({
      method: 'GetLink',
      http: [{ verb: 'GET', path: LINK_PATH }],
      entity: { kind: 'application', path: 'application_ids.application_id' },
      rights,
      request: GetApplicationLinkRequest,
    }),
    'As.SetLink': asRpc({
      method: 'SetLink',
      http: [{ verb: 'PUT', path: LINK_PATH, body: '*' }],
      entity: { kind: 'application', path: 'application_ids.application_id' },
      rights,
      request: SetApplicationLinkRequest,
    }),
    'As.DeleteLink': asRpc({
      method: 'DeleteLink',
      http: [{ verb: 'DELETE', path: '/as/applications/{application_id}/link' }],
      entity: { kind: 'application', path: 'application_id' },
      rights,
      request: ApplicationIdentifiers,
    }),
  };
}
