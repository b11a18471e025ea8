import { ValidateBy } from 'class-validator';
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

/**
 * An application downlink as the AS queues it at the NS (`AsNs.DownlinkQueuePush|Replace`):
 * encrypted by the AS for the session `session_key_id` names, with that session's FCnt. Its FPort
 * is an application port: TTS's ApplicationDownlink rule (`f_port` not 224, the LoRaWAN test
 * protocol), and not 0 (MAC commands, which only the NS sends).
 */
export class AsNsApplicationDownlink extends ApplicationDownlink {
  declare f_port: number;
}
Required()(AsNsApplicationDownlink.prototype, 'f_port');
ValidateBy({
  name: 'application_f_port',
  validator: { validate: (v) => v !== 0 && v !== 224, defaultMessage: () => 'value must be an application FPort: not 0 nor 224' },
})(AsNsApplicationDownlink.prototype, 'f_port');

/** `ttn.lorawan.v3.DownlinkQueueRequest` as the AS sends it to the NS (AsNs.DownlinkQueuePush / DownlinkQueueReplace). */
export class AsNsDownlinkQueueRequest {
  @Required() @Message(() => EndDeviceIdentifiers) end_device_ids!: EndDeviceIdentifiers;
  @Messages(() => AsNsApplicationDownlink, { maxItems: MAX_QUEUE_DOWNLINKS }) downlinks?: AsNsApplicationDownlink[];
}

/** The `@type` of DownlinkQueueOperationErrorDetails in an error's `details`. */
export const DOWNLINK_QUEUE_OPERATION_ERROR_DETAILS_TYPE = 'type.googleapis.com/ttn.lorawan.v3.DownlinkQueueOperationErrorDetails';

/**
 * `ttn.lorawan.v3.DownlinkQueueOperationErrorDetails`: what the NS knows of the device's sessions
 * when it refuses a queue operation (an FCnt too low, an unknown session), so the AS can rebuild
 * its sessions and encrypt again (TTS `grpc_asns.go`, `applicationserver.go` buildSessionsFromError).
 * JSON as TTS writes it: DevAddrs in hex, session key IDs in base64, zero values omitted.
 */
export interface DownlinkQueueOperationErrorDetails {
  dev_addr?: string;
  session_key_id?: string;
  min_f_cnt_down?: number;
  pending_dev_addr?: string;
  pending_session_key_id?: string;
  pending_min_f_cnt_down?: number;
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
