import { Message, Messages, Required } from '../json/nested';
import { ApplicationIdentifiers, EndDeviceIdentifiers, Id } from './identifiers';
import { ApplicationDownlink } from './traffic';

/** TTS accepts at most 100000 downlinks per queue operation (`io.CleanDownlinks`). */
export const MAX_QUEUE_DOWNLINKS = 100000;

/** `ttn.lorawan.v3.DownlinkQueueRequest`: AppAs.DownlinkQueuePush / DownlinkQueueReplace (the path's IDs win). */
export class DownlinkQueueRequest {
  @Required() @Message(() => EndDeviceIdentifiers) end_device_ids!: EndDeviceIdentifiers;
  @Messages(() => ApplicationDownlink, { maxItems: MAX_QUEUE_DOWNLINKS }) downlinks?: ApplicationDownlink[];
}

/** `ttn.lorawan.v3.ApplicationDownlinks`: the queue as listed (`{}` when empty). */
export interface ApplicationDownlinksJson {
  downlinks?: Array<Record<string, unknown>>;
}

/**
 * The webhook-scoped push/replace (`/as/applications/{app}/webhooks/{webhook}/devices/{dev}/down/push|replace`,
 * TTS `io/web/webhooks.go`): not a gRPC message in TTS; modelled as the request the route builds.
 */
export class WebhookDownlinkQueueRequest {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @Required() @Id() webhook_id!: string;
  @Required() @Id() device_id!: string;
  @Messages(() => ApplicationDownlink, { maxItems: MAX_QUEUE_DOWNLINKS }) downlinks?: ApplicationDownlink[];
}
