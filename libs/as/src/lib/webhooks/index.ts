import type { Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { WebhookRegistryRpc } from './webhook-registry.rpc';
import { WebhookRegistryService } from './webhook-registry.service';
import { SqlWebhookStore, WEBHOOK_STORE } from './webhook.store';

export * from './webhook.store';
export * from './webhook-registry.service';

/** The webhook registry (and later delivery): its store on the AS database, the service and its RPC handlers. */
export const WEBHOOK_PROVIDERS: Provider[] = [
  { provide: WEBHOOK_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new SqlWebhookStore(ds) },
  WebhookRegistryService,
  WebhookRegistryRpc,
];
