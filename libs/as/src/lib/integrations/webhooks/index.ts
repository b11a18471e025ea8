import type { Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ACTIVE_WEBHOOKS_CACHE, applicationCacheProvider } from '../../common/application-cache';
import { WebhookRegistryController } from './webhook-registry.controller';
import { WebhookRegistryService } from './webhook-registry.service';
import { SqlWebhookStore, WEBHOOK_STORE, type WebhookStore } from './webhook.store';

export * from './webhook.store';
export * from './webhook-registry.service';

/** The webhook registry: its store on the AS database, the delivery path's cache of active webhooks, the service and its RPC handlers. */
export const WEBHOOK_PROVIDERS: Provider[] = [
  { provide: WEBHOOK_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new SqlWebhookStore(ds) },
  applicationCacheProvider(ACTIVE_WEBHOOKS_CACHE, 'webhooks', WEBHOOK_STORE, (store: WebhookStore, app) => store.listActive(app)),
  WebhookRegistryService,
];
export const WEBHOOK_CONTROLLERS = [WebhookRegistryController];
