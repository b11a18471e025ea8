import { Module } from '@nestjs/common';
import { APPLICATION_INTEGRATIONS, type ApplicationIntegration } from './application-integration';
import { ApplicationIntegrations } from './application-integrations.service';
import { ApplicationUpForwarder } from './application-up-forwarder.service';
import { WebhookIntegration } from './webhooks/webhook.integration';
import { WebhooksModule } from './webhooks/webhooks.module';
import { StorageIntegration } from './storage/storage.integration';
import { StorageModule } from './storage/storage.module';
import { PubSubIntegration } from './pubsub/pubsub.integration';
import { PubSubModule } from './pubsub/pubsub.module';
import { MqttIntegration } from './mqtt/mqtt.integration';
import { MqttModule } from './mqtt/mqtt.module';

/**
 * The AS's integrations, one line each: the module of `integrations/<name>/` and the integration
 * it exports. (Their downlink entry points are listed in IntegrationEntryPointsModule.)
 */
const INTEGRATIONS = [
  { module: WebhooksModule, integration: WebhookIntegration },
  { module: StorageModule, integration: StorageIntegration },
  { module: PubSubModule, integration: PubSubIntegration },
  { module: MqttModule, integration: MqttIntegration },
];

/**
 * Every ApplicationUp to every integration: the list (APPLICATION_INTEGRATIONS), its fan-out with
 * failures isolated per integration (ApplicationIntegrations), and the ApplicationUpForwarder that
 * correlates messages and publishes their `as.up.*` events around it.
 */
@Module({
  imports: INTEGRATIONS.map((entry) => entry.module),
  providers: [
    {
      provide: APPLICATION_INTEGRATIONS,
      inject: INTEGRATIONS.map((entry) => entry.integration),
      useFactory: (...integrations: ApplicationIntegration[]) => integrations,
    },
    ApplicationIntegrations,
    ApplicationUpForwarder,
  ],
  // WebhooksModule for its WebhookLag (the AS's admission refuses data uplinks while the webhooks are behind).
  exports: [ApplicationIntegrations, ApplicationUpForwarder, WebhooksModule],
})
export class IntegrationsModule {}
