import { ApplicationIdentifiers } from '../messages/identifiers';
import { ApplicationLink, GetApplicationLinkRequest, SetApplicationLinkRequest } from '../messages/application-link';
import { Empty } from '../messages/responses';
import { Right } from './rights';
import { applicationAt, defineRpc, type RpcSpec } from './define-rpc';

const SERVICE = 'As';
const LINK_PATH = '/as/applications/{application_ids.application_id}/link';

const asRpc = <Req extends object>(def: Omit<RpcSpec<Req>, 'component' | 'service'>) => defineRpc({ ...def, service: SERVICE, component: 'as' });

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
      entity: applicationAt('application_ids.application_id'),
      rights,
      request: GetApplicationLinkRequest,
      response: ApplicationLink,
    }),
    'As.SetLink': asRpc({
      method: 'SetLink',
      http: [{ verb: 'PUT', path: LINK_PATH, body: '*' }],
      entity: applicationAt('application_ids.application_id'),
      rights,
      request: SetApplicationLinkRequest,
      response: ApplicationLink,
    }),
    'As.DeleteLink': asRpc({
      method: 'DeleteLink',
      http: [{ verb: 'DELETE', path: '/as/applications/{application_id}/link' }],
      entity: applicationAt('application_id'),
      rights,
      request: ApplicationIdentifiers,
      response: Empty,
    }),
  };
}
