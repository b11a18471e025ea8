import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { type ApplicationPubSub, decodeMessage, DownlinkQueueRequest, newUlid, type RpcContext } from '@lorawan/api';
import { isStackError } from '@lorawan/errors';
import { DownlinkQueue } from '../../../downlinks/downlink-queue.service';
import { ErrDownlinkOperation } from '../pubsub.errors';
import { PubSubConnections } from '../pubsub-connections.service';
import type { DownlinkOperation } from '../providers/provider';

/**
 * The Pub/Sub integration's downlink entry point (TTS `pubsub.go` handleDown): a message on a
 * Pub/Sub's `downlink_push` / `downlink_replace` topic is a DownlinkQueueRequest
 * (`{"end_device_ids":{…},"downlinks":[…]}`, JSON) for a device of the Pub/Sub's application,
 * queued through the same DownlinkQueue as AppAs and the webhooks' downlink API. A message that is
 * not one, or that the queue refuses, is `downlink_operation` (the reason as cause), which
 * PubSubConnections reports as `as.pubsub.fail`.
 */
@Injectable()
export class PubSubDownlinks implements OnModuleInit {
  constructor(
    @Inject(PubSubConnections) private readonly connections: PubSubConnections,
    @Inject(DownlinkQueue) private readonly queue: DownlinkQueue,
  ) {}

  onModuleInit(): void {
    this.connections.onDownlink((pubsub, operation, topic, body) => this.handle(pubsub, operation, topic, body));
  }

  async handle(pubsub: ApplicationPubSub, operation: DownlinkOperation, topic: string, body: Buffer): Promise<void> {
    const refuse = (message: string, cause?: unknown) => ErrDownlinkOperation.with({ operation, topic, message }, isStackError(cause) ? cause : undefined);
    let request: DownlinkQueueRequest;
    try {
      request = decodeMessage(DownlinkQueueRequest, JSON.parse(body.toString('utf8')) as unknown);
    } catch (err) {
      throw refuse(isStackError(err) ? err.fullMessage : 'payload is not JSON', err);
    }
    const application = pubsub.ids.application_ids.application_id;
    if (request.end_device_ids.application_ids?.application_id !== application) throw refuse(`end_device_ids must name a device of application ${application}`);
    const ctx: RpcContext = { request_id: newUlid(), correlation_ids: [`as:pubsub:${newUlid()}`] };
    try {
      await this.queue[operation](request, ctx);
    } catch (err) {
      throw refuse(isStackError(err) ? err.fullMessage : 'downlink queue failed', err);
    }
  }
}
