import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ACTIVE_WEBHOOKS_CACHE, applicationCacheProvider } from '../../common/application-cache';
import { EndDevicesModule } from '../../end-devices/end-devices.module';
import { WEBHOOK_JOB_QUEUE_PROVIDER } from './delivery/webhook-job-queue.provider';
import { WebhookDeliveryWorker } from './delivery/webhook-delivery.worker';
import { WebhookLag } from './delivery/webhook-lag';
import { WebhookRegistryController } from './webhook-registry.controller';
import { WebhookRegistryService } from './webhook-registry.service';
import { SqlWebhookStore, WEBHOOK_STORE, type WebhookStore } from './webhook.store';
import { WebhookIntegration } from './webhook.integration';

/**
 * The webhook integration (TTS `pkg/applicationserver/io/web`): the webhook registry (its store
 * on the AS database, its RPC handlers, the per-replica cache of each application's active
 * webhooks), the integration that turns messages into delivery jobs, the durable job queue and
 * the workers that deliver them. Its downlink entry point is WebhookDownlinksModule.
 */
@Module({
  imports: [EndDevicesModule],
  controllers: [WebhookRegistryController],
  providers: [
    { provide: WEBHOOK_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new SqlWebhookStore(ds) },
    applicationCacheProvider(ACTIVE_WEBHOOKS_CACHE, 'webhooks', WEBHOOK_STORE, (store: WebhookStore, app) => store.listActive(app)),
    WebhookRegistryService,
    WEBHOOK_JOB_QUEUE_PROVIDER,
    WebhookIntegration,
    WebhookDeliveryWorker,
    WebhookLag,
  ],
  exports: [WebhookIntegration, WEBHOOK_STORE, WebhookLag],
})
export class WebhooksModule {}
