import { Module } from '@nestjs/common';
import { MqttServerModule } from './mqtt/mqtt-server.module';
import { WebhookDownlinksModule } from './webhooks/downlink/webhook-downlinks.module';
import { PubSubDownlinksModule } from './pubsub/downlink/pubsub-downlinks.module';

/**
 * The integrations' downlink entry points, one line each. Apart from IntegrationsModule because
 * they use the downlink queue, which itself reports to the integrations.
 */
@Module({
  imports: [WebhookDownlinksModule, PubSubDownlinksModule, MqttServerModule],
})
export class IntegrationEntryPointsModule {}
