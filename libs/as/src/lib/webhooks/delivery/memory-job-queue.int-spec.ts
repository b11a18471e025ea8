import { MemoryJobQueue } from './memory-job-queue';
import { describeWebhookDeliveryConformance } from './webhook-delivery.conformance';

describeWebhookDeliveryConformance(
  'in memory (embedded)',
  async () => {
    const queue = new MemoryJobQueue(2000);
    return { queue, reopen: async () => queue, remaining: async () => queue.size, close: () => queue.close() };
  },
  { durable: false },
);
