import type { Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HealthService } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { JetStreamJobQueue } from './jetstream-job-queue';
import { SqlJobQueue } from './sql-job-queue';
import { WEBHOOK_JOB_QUEUE, type WebhookJobQueue } from './webhook-job';

/** Messages one AS replica holds at once (per JetStream consumer: first attempts, retries), over all webhooks. */
const WEBHOOK_MAX_IN_FLIGHT = 2000;

/** The delivery queue of the run mode: JetStream when NATS_URL is set, else a table of the AS's own database. */
async function openWebhookJobQueue(config: StackConfig, dataSource: DataSource): Promise<WebhookJobQueue> {
  if (!config.natsUrl) return SqlJobQueue.open(dataSource, { maxInFlight: WEBHOOK_MAX_IN_FLIGHT, maxJobs: config.webhooks.queueMaxJobs });
  return JetStreamJobQueue.open({
    url: config.natsUrl,
    security: config.natsSecurity,
    subjectPrefix: config.natsSubjectPrefix,
    ackWaitMs: config.webhooks.ackWaitMs,
    maxInFlight: WEBHOOK_MAX_IN_FLIGHT,
    maxJobs: config.webhooks.queueMaxJobs,
  });
}

/** The webhook delivery jobs' durable queue of the run mode, its health part of readiness. */
export const WEBHOOK_JOB_QUEUE_PROVIDER: Provider = {
  provide: WEBHOOK_JOB_QUEUE,
  inject: [STACK_CONFIG, HealthService, DataSource],
  useFactory: async (config: StackConfig, health: HealthService, dataSource: DataSource) => {
    const queue = await openWebhookJobQueue(config, dataSource);
    health.register({ name: 'webhook-queue', isHealthy: () => queue.healthy() });
    return queue;
  },
};
