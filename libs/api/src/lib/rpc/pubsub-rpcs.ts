import {
  ApplicationPubSub,
  ApplicationPubSubFormats,
  ApplicationPubSubs,
  DeleteApplicationPubSubRequest,
  GetApplicationPubSubFormatsRequest,
  GetApplicationPubSubRequest,
  ListApplicationPubSubsRequest,
  SetApplicationPubSubRequest,
} from '../messages/pubsub';
import { Empty } from '../messages/responses';
import { Right } from './rights';
import { applicationAt, defineRpc, type RpcSpec } from './define-rpc';

const SERVICE = 'ApplicationPubSubRegistry';

const pubsubRpc = <Req extends object>(def: Omit<RpcSpec<Req>, 'component' | 'service'>) => defineRpc({ ...def, service: SERVICE, component: 'as' });

const app = applicationAt;

/**
 * The AS's ApplicationPubSubRegistry (TTS `applicationserver_pubsub.proto`). Rights as TTS
 * `grpc_pubsub.go`: reading needs traffic-read; Set and Delete need basic settings, traffic-read
 * and traffic-down-write (a Pub/Sub reads traffic and may push downlinks).
 */
export function pubsubRpcs() {
  const read = [Right.RIGHT_APPLICATION_TRAFFIC_READ];
  const write = [Right.RIGHT_APPLICATION_SETTINGS_BASIC, Right.RIGHT_APPLICATION_TRAFFIC_READ, Right.RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE];
  return {
    'ApplicationPubSubRegistry.GetFormats': pubsubRpc({
      method: 'GetFormats',
      http: [{ verb: 'GET', path: '/as/pubsub-formats' }],
      rights: [],
      request: GetApplicationPubSubFormatsRequest,
      response: ApplicationPubSubFormats,
    }),
    'ApplicationPubSubRegistry.Get': pubsubRpc({
      method: 'Get',
      http: [{ verb: 'GET', path: '/as/pubsub/{ids.application_ids.application_id}/{ids.pub_sub_id}' }],
      entity: app('ids.application_ids.application_id'),
      rights: read,
      request: GetApplicationPubSubRequest,
      response: ApplicationPubSub,
    }),
    'ApplicationPubSubRegistry.List': pubsubRpc({
      method: 'List',
      http: [{ verb: 'GET', path: '/as/pubsub/{application_ids.application_id}' }],
      entity: app('application_ids.application_id'),
      rights: read,
      request: ListApplicationPubSubsRequest,
      response: ApplicationPubSubs,
      paginated: true,
    }),
    'ApplicationPubSubRegistry.Set': pubsubRpc({
      method: 'Set',
      http: [
        { verb: 'PUT', path: '/as/pubsub/{pubsub.ids.application_ids.application_id}/{pubsub.ids.pub_sub_id}', body: '*' },
        { verb: 'POST', path: '/as/pubsub/{pubsub.ids.application_ids.application_id}', body: '*' },
      ],
      entity: app('pubsub.ids.application_ids.application_id'),
      rights: write,
      request: SetApplicationPubSubRequest,
      response: ApplicationPubSub,
    }),
    'ApplicationPubSubRegistry.Delete': pubsubRpc({
      method: 'Delete',
      http: [{ verb: 'DELETE', path: '/as/pubsub/{application_ids.application_id}/{pub_sub_id}' }],
      entity: app('application_ids.application_id'),
      rights: write,
      request: DeleteApplicationPubSubRequest,
      response: Empty,
    }),
  };
}
