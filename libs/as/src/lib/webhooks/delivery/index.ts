import type { Provider } from '@nestjs/common';
import { HealthService } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { APPLICATION_UP_SINK } from '../../integrations/application-up-sink';
import { JetStreamJobQueue } from './jetstream-job-queue';
import { MemoryJobQueue } from './memory-job-queue';
import { WEBHOOK_JOB_QUEUE, type WebhookJobQueue } from './webhook-job';
import { WebhookDeliveryWorker } from './webhook-delivery.worker';
import { WebhookIntegration } from './webhook.integration';

/** Messages one AS replica holds at once (per JetStream consumer: first attempts, retries), over all webhooks. */
const WEBHOOK_MAX_IN_FLIGHT = 2000;

/** The delivery queue of the run mode: JetStream when NATS_URL is set, else in memory. */
async function openWebhookJobQueue(config: StackConfig): Promise<WebhookJobQueue> {
  if (!config.natsUrl) return new MemoryJobQueue(WEBHOOK_MAX_IN_FLIGHT);
  return JetStreamJobQueue.open({
    url: config.natsUrl,
    subjectPrefix: config.natsSubjectPrefix,
    ackWaitMs: config.webhooks.ackWaitMs,
    maxInFlight: WEBHOOK_MAX_IN_FLIGHT,
  });
}

/** Webhook delivery: the APPLICATION_UP_SINK implementation, its durable job queue and workers. */
export const WEBHOOK_DELIVERY_PROVIDERS: Provider[] = [
  {
    provide: WEBHOOK_JOB_QUEUE,
    inject: [STACK_CONFIG, HealthService],
    useFactory: async (config: StackConfig, health: HealthService) => {
      const queue = await openWebhookJobQueue(config);
      health.register({ name: 'webhook-queue', isHealthy: () => queue.healthy() });
      return queue;
    },
  },
  WebhookIntegration,
  WebhookDeliveryWorker,
  { provide: APPLICATION_UP_SINK, useExisting: WebhookIntegration },
];
