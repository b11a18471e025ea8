import {
  ApplicationWebhook,
  DeleteApplicationWebhookRequest,
  GetApplicationWebhookFormatsRequest,
  GetApplicationWebhookRequest,
  ListApplicationWebhooksRequest,
  SetApplicationWebhookRequest,
} from '../messages/webhooks';
import { ApplicationWebhookFormats, ApplicationWebhooks, Empty } from '../messages/responses';
import { Right } from './rights';
import { applicationAt, defineRpc, type RpcSpec } from './define-rpc';

const SERVICE = 'ApplicationWebhookRegistry';

const webhookRpc = <Req extends object>(def: Omit<RpcSpec<Req>, 'component' | 'service'>) => defineRpc({ ...def, service: SERVICE, component: 'as' });

const app = applicationAt;

/**
 * The AS's ApplicationWebhookRegistry (wire contract §8.1, TTS `applicationserver_web.proto`).
 * Rights as TTS `grpc_webhooks.go`: reading needs traffic-read; Set and Delete need basic settings,
 * traffic-read and traffic-down-write (a webhook reads traffic and may push downlinks).
 */
export function webhookRpcs() {
  const read = [Right.RIGHT_APPLICATION_TRAFFIC_READ];
  const write = [Right.RIGHT_APPLICATION_SETTINGS_BASIC, Right.RIGHT_APPLICATION_TRAFFIC_READ, Right.RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE];
  return {
    'ApplicationWebhookRegistry.GetFormats': webhookRpc({
      method: 'GetFormats',
      http: [{ verb: 'GET', path: '/as/webhook-formats' }],
      rights: [],
      request: GetApplicationWebhookFormatsRequest,
      response: ApplicationWebhookFormats,
    }),
    'ApplicationWebhookRegistry.List': webhookRpc({
      method: 'List',
      http: [{ verb: 'GET', path: '/as/webhooks/{application_ids.application_id}' }],
      entity: app('application_ids.application_id'),
      rights: read,
      request: ListApplicationWebhooksRequest,
      response: ApplicationWebhooks,
      paginated: true,
    }),
    'ApplicationWebhookRegistry.Get': webhookRpc({
      method: 'Get',
      http: [{ verb: 'GET', path: '/as/webhooks/{ids.application_ids.application_id}/{ids.webhook_id}' }],
      entity: app('ids.application_ids.application_id'),
      rights: read,
      request: GetApplicationWebhookRequest,
      response: ApplicationWebhook,
    }),
    'ApplicationWebhookRegistry.Set': webhookRpc({
      method: 'Set',
      http: [
        { verb: 'PUT', path: '/as/webhooks/{webhook.ids.application_ids.application_id}/{webhook.ids.webhook_id}', body: '*' },
        { verb: 'POST', path: '/as/webhooks/{webhook.ids.application_ids.application_id}', body: '*' },
      ],
      entity: app('webhook.ids.application_ids.application_id'),
      rights: write,
      request: SetApplicationWebhookRequest,
      response: ApplicationWebhook,
    }),
    'ApplicationWebhookRegistry.Delete': webhookRpc({
      method: 'Delete',
      http: [{ verb: 'DELETE', path: '/as/webhooks/{application_ids.application_id}/{webhook_id}' }],
      entity: app('application_ids.application_id'),
      rights: write,
      request: DeleteApplicationWebhookRequest,
      response: Empty,
    }),
  };
}
