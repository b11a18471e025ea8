import { Inject, Injectable } from '@nestjs/common';
import type { RpcContext, WebhookDownlinkQueueRequest } from '@lorawan/api';
import { ErrWebhookNotFoundForDownlink, ErrWebhookPaused } from '../../../errors';
import { WEBHOOK_STORE, type WebhookStore } from '../webhook.store';
import { DownlinkQueue } from '../../../downlinks/downlink-queue.service';

/**
 * The webhook-scoped downlink push/replace (wire contract §8.3): the webhook must exist
 * (`webhook_not_found`, 404) and not be paused (`webhook_paused`, which the gateway answers with
 * 406 and an empty body); then the same push/replace as AppAs for the webhook's application.
 */
@Injectable()
export class WebhookDownlinkQueue {
  constructor(
    @Inject(WEBHOOK_STORE) private readonly webhooks: WebhookStore,
    @Inject(DownlinkQueue) private readonly queue: DownlinkQueue,
  ) {}

  async push(req: WebhookDownlinkQueueRequest, ctx: RpcContext): Promise<Record<string, unknown>> {
    await this.checkWebhook(req);
    return this.queue.push(this.queueRequest(req), ctx);
  }

  async replace(req: WebhookDownlinkQueueRequest, ctx: RpcContext): Promise<Record<string, unknown>> {
    await this.checkWebhook(req);
    return this.queue.replace(this.queueRequest(req), ctx);
  }

  private async checkWebhook(req: WebhookDownlinkQueueRequest): Promise<void> {
    const webhook = await this.webhooks.get(req.application_ids.application_id, req.webhook_id);
    if (!webhook) throw ErrWebhookNotFoundForDownlink.with();
    if (webhook.paused) throw ErrWebhookPaused.with();
  }

  private queueRequest(req: WebhookDownlinkQueueRequest) {
    return { end_device_ids: { device_id: req.device_id, application_ids: req.application_ids }, downlinks: req.downlinks };
  }
}
