import type { Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type Transport, TRANSPORT } from '@lorawan/transport';
import { ACTIVE_WEBHOOKS_CACHE, APPLICATION_CACHE_TTL_MS, ApplicationCache } from '../common/application-cache';
import { WebhookRegistryRpc } from './webhook-registry.rpc';
import { WebhookRegistryService } from './webhook-registry.service';
import { SqlWebhookStore, WEBHOOK_STORE, type WebhookStore } from './webhook.store';

export * from './webhook.store';
export * from './webhook-registry.service';

/** The webhook registry: its store, the delivery path's cache of active webhooks on the AS database, the service and its RPC handlers. */
export const WEBHOOK_PROVIDERS: Provider[] = [
  { provide: WEBHOOK_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new SqlWebhookStore(ds) },
  {
    provide: ACTIVE_WEBHOOKS_CACHE,
    inject: [WEBHOOK_STORE, TRANSPORT],
    useFactory: (store: WebhookStore, transport: Transport) => {
      const cache = new ApplicationCache('webhooks', (app) => store.listActive(app), APPLICATION_CACHE_TTL_MS, transport);
      cache.start();
      return cache;
    },
  },
  WebhookRegistryService,
  WebhookRegistryRpc,
];
