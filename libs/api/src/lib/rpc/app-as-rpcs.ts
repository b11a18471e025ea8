import { ApplicationIdentifiers, EndDeviceIdentifiers } from '../messages/identifiers';
import { MQTTConnectionInfo } from '../messages/mqtt';
import { DownlinkQueueRequest, WebhookDownlinkQueueRequest } from '../messages/downlinks';
import { ApplicationUp } from '../messages/application-up';
import { ApplicationDownlinks, Empty } from '../messages/responses';
import { Right } from './rights';
import { applicationAt, defineRpc, type RpcSpec } from './define-rpc';

const QUEUE_PATH = '/as/applications/{end_device_ids.application_ids.application_id}/devices/{end_device_ids.device_id}/down';
/** The error a paused webhook answers push/replace with (TTS answers 406 with an empty body). */
export const WEBHOOK_PAUSED = 'pkg/applicationserver/io/web:webhook_paused';
const WEBHOOK_QUEUE_PATH = '/as/applications/{application_ids.application_id}/webhooks/{webhook_id}/devices/{device_id}/down';

const asRpc = <Req extends object>(def: Omit<RpcSpec<Req>, 'component'>) => defineRpc({ ...def, component: 'as' });

/**
 * The AS's AppAs downlink queue (wire contract §9) and the webhook-scoped push/replace (§8.3).
 * The webhook-scoped routes answer an empty body (and 406 when the webhook is paused).
 */
export function appAsRpcs() {
  const downWrite = [Right.RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE];
  return {
    'AppAs.DownlinkQueuePush': asRpc({
      service: 'AppAs',
      method: 'DownlinkQueuePush',
      http: [{ verb: 'POST', path: `${QUEUE_PATH}/push`, body: '*' }],
      entity: applicationAt('end_device_ids.application_ids.application_id'),
      rights: downWrite,
      request: DownlinkQueueRequest,
      response: Empty,
    }),
    'AppAs.DownlinkQueueReplace': asRpc({
      service: 'AppAs',
      method: 'DownlinkQueueReplace',
      http: [{ verb: 'POST', path: `${QUEUE_PATH}/replace`, body: '*' }],
      entity: applicationAt('end_device_ids.application_ids.application_id'),
      rights: downWrite,
      request: DownlinkQueueRequest,
      response: Empty,
    }),
    'AppAs.DownlinkQueueList': asRpc({
      service: 'AppAs',
      method: 'DownlinkQueueList',
      http: [{ verb: 'GET', path: '/as/applications/{application_ids.application_id}/devices/{device_id}/down' }],
      entity: applicationAt('application_ids.application_id'),
      rights: [Right.RIGHT_APPLICATION_TRAFFIC_READ],
      request: EndDeviceIdentifiers,
      response: ApplicationDownlinks,
    }),
    /** Where and as whom an MQTT client of the application connects (TTS `io/grpc`: RIGHT_APPLICATION_INFO). */
    'AppAs.GetMQTTConnectionInfo': asRpc({
      service: 'AppAs',
      method: 'GetMQTTConnectionInfo',
      http: [{ verb: 'GET', path: '/as/applications/{application_id}/mqtt-connection-info' }],
      entity: applicationAt('application_id'),
      rights: [Right.RIGHT_APPLICATION_INFO],
      request: ApplicationIdentifiers,
      response: MQTTConnectionInfo,
    }),
    /** Simulate uplink (§9): `{}` once the message is processed and its webhook deliveries are queued. */
    'AppAs.SimulateUplink': asRpc({
      service: 'AppAs',
      method: 'SimulateUplink',
      http: [
        { verb: 'POST', path: '/as/applications/{end_device_ids.application_ids.application_id}/devices/{end_device_ids.device_id}/up/simulate', body: '*' },
      ],
      entity: applicationAt('end_device_ids.application_ids.application_id'),
      rights: [Right.RIGHT_APPLICATION_TRAFFIC_UP_WRITE],
      request: ApplicationUp,
      response: Empty,
    }),
    ...webhookDownlinkRpcs(),
  };
}

/**
 * The webhook-scoped push/replace of §8.3: 200 with an empty body, 406 with an empty body when the
 * webhook is paused. Spread into `appAsRpcs()`; handled by the AS's WebhookDownlinkController.
 */
export function webhookDownlinkRpcs() {
  const downWrite = [Right.RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE];
  const entity = applicationAt('application_ids.application_id');
  const webhookResponses = { emptyResponse: true, httpStatusFor: { [WEBHOOK_PAUSED]: 406 } };
  return {
    'AppAs.WebhookDownlinkQueuePush': asRpc({
      service: 'AppAs',
      method: 'WebhookDownlinkQueuePush',
      http: [{ verb: 'POST', path: `${WEBHOOK_QUEUE_PATH}/push`, body: '*' }],
      entity,
      rights: downWrite,
      request: WebhookDownlinkQueueRequest,
      response: Empty,
      ...webhookResponses,
    }),
    'AppAs.WebhookDownlinkQueueReplace': asRpc({
      service: 'AppAs',
      method: 'WebhookDownlinkQueueReplace',
      http: [{ verb: 'POST', path: `${WEBHOOK_QUEUE_PATH}/replace`, body: '*' }],
      entity,
      rights: downWrite,
      request: WebhookDownlinkQueueRequest,
      response: Empty,
      ...webhookResponses,
    }),
  };
}
