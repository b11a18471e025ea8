import { Module } from '@nestjs/common';
import { DownlinksModule } from '../../../downlinks/downlinks.module';
import { WebhooksModule } from '../webhooks.module';
import { WebhookDownlinkController } from './webhook-downlink.controller';
import { WebhookDownlinkQueue } from './webhook-downlink-queue.service';

/**
 * The webhook integration's downlink entry point (`X-Downlink-Push|Replace`: AppAs.WebhookDownlinkQueuePush|Replace):
 * the webhook's checks, then the shared downlink queue operations.
 */
@Module({
  imports: [WebhooksModule, DownlinksModule],
  controllers: [WebhookDownlinkController],
  providers: [WebhookDownlinkQueue],
})
export class WebhookDownlinksModule {}
