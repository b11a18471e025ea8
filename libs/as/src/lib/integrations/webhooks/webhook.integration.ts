import { Inject, Injectable } from '@nestjs/common';
import { type ApplicationUpJson, applicationUpKind, type ApplicationWebhook } from '@lorawan/api';
import type { ApplicationIntegration } from '../application-integration';
import { ACTIVE_WEBHOOKS_CACHE, type ApplicationCache } from '../../common/application-cache';
import { messageConfig, WEBHOOK_JOB_QUEUE, type WebhookJob, type WebhookJobQueue } from './delivery/webhook-job';

/**
 * The webhook integration (TTS `pkg/applicationserver/io/web`): every ApplicationUp becomes one
 * delivery job per active webhook of the application that has the message's kind enabled (its
 * message config present, `{}` included). `publish` reads the application's active webhooks (cached,
 * dropped on every replica when the registry changes them) and resolves when
 * the queue has accepted every job; the workers deliver them later.
 */
@Injectable()
export class WebhookIntegration implements ApplicationIntegration {
  readonly name = 'webhooks';

  constructor(
    @Inject(ACTIVE_WEBHOOKS_CACHE) private readonly activeWebhooks: Pick<ApplicationCache<ApplicationWebhook[]>, 'get'>,
    @Inject(WEBHOOK_JOB_QUEUE) private readonly queue: WebhookJobQueue,
  ) {}

  async publish(up: ApplicationUpJson): Promise<void> {
    const kind = applicationUpKind(up);
    if (!kind) return;
    const webhooks = await this.activeWebhooks.get(up.end_device_ids.application_ids.application_id);
    const jobs: WebhookJob[] = webhooks.filter((webhook) => messageConfig(webhook, kind)).map((webhook) => ({ ids: webhook.ids, up, kind, attempt: 1 }));
    if (jobs.length > 0) await this.queue.enqueue(jobs);
  }
}
