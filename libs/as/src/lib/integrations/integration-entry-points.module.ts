import { Module } from '@nestjs/common';
import { WebhookDownlinksModule } from './webhooks/downlink/webhook-downlinks.module';

/**
 * The integrations' downlink entry points, one line each. Apart from IntegrationsModule because
 * they use the downlink queue, which itself reports to the integrations.
 */
@Module({
  imports: [WebhookDownlinksModule],
})
export class IntegrationEntryPointsModule {}
