import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { AS_EVENTS, type ApplicationWebhook, deviceIdentifiers } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { formatMessage, type StackError } from '@lorawan/errors';
import { setWebhookQueueDepthSource, webhookDeliveries, webhookDeliveryDuration, webhookJobsHandedBack } from '@lorawan/observability';
import { ACTIVE_WEBHOOKS_CACHE, type ApplicationCache } from '../../../common/application-cache';
import { WEBHOOK_STORE, type WebhookStore } from '../webhook.store';
import { GiveUpLog } from './give-up-log';
import { retryBackoffMs } from './retry-policy';
import { WebhookHealthRecorder } from './webhook-health';
import { type Delivery, type JobMessage, messageConfig, WEBHOOK_JOB_QUEUE, webhookKey, type WebhookJobQueue } from './webhook-job';
import { SLOW_ENDPOINT_MS, WebhookLag } from './webhook-lag';
import { WebhookLane } from './webhook-lane';
import { type DeliveryResult, WebhookSender } from './webhook-sender';

/** After an unexpected error in the worker itself, the message comes back after this long. */
const INTERNAL_ERROR_RETRY_MS = 1000;
/** Messages a lane keeps waiting whatever its endpoint's speed, and at most before its first response (see WebhookLane). */
const LANE_MIN_WAITING = 64;
const LANE_MAX_WAITING_UNKNOWN = 500;
/** How often held messages and lanes are looked at (at most; a sixth of the ack wait if shorter). */
const SWEEP_INTERVAL_MS = 1000;
/** How long shutdown waits for requests in flight before leaving them to another replica. */
const SHUTDOWN_GRACE_MS = 3000;

export type WebhookWorkerConfig = Pick<StackConfig, 'publicUrl' | 'webhooks'>;
/** The application's active webhooks, as the registry has them now (the ACTIVE_WEBHOOKS_CACHE). */
export type ActiveWebhooks = Pick<ApplicationCache<ApplicationWebhook[]>, 'get'>;

/**
 * Delivers the jobs of the queue (wire contract §8.2, with retries where TTS has none): one lane
 * per webhook bounds its requests in flight; a 2xx acks the job; a failed attempt publishes
 * `as.webhook.fail`, records `health_status`, and is either retried (a copy with the next attempt
 * number and a `not_before` after the backoff is queued, then the original acked) or, when not
 * retryable or out of attempts, given up (acked). A job pulled before its `not_before` goes back
 * to the queue until then. Messages kept longer than a third of the ack wait (waiting in a lane
 * or in flight) are marked as in progress so JetStream does not hand them to another replica.
 * A job is sent with its webhook's settings as they are when it is sent: a webhook deleted or
 * paused since, or no longer taking the message's kind, gets nothing (the job is acked).
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookDelivery');
  private readonly lanes = new Map<string, WebhookLane>();
  /** Messages this worker holds, with when each was last marked as in progress. */
  private readonly held = new Map<JobMessage, number>();
  private readonly sender: WebhookSender;
  private readonly health: WebhookHealthRecorder;
  private readonly giveUps = new GiveUpLog(this.logger);
  private sweepTimer?: NodeJS.Timeout;
  private running = 0;
  private idle?: () => void;
  private closed = false;

  constructor(
    @Inject(WEBHOOK_JOB_QUEUE) private readonly queue: WebhookJobQueue,
    @Inject(WEBHOOK_STORE) store: WebhookStore,
    @Inject(EventPublisher) private readonly events: Pick<EventPublisher, 'publish'>,
    @Inject(STACK_CONFIG) private readonly config: WebhookWorkerConfig,
    @Inject(ACTIVE_WEBHOOKS_CACHE) private readonly webhooks: ActiveWebhooks,
    @Optional() @Inject(WebhookLag) private readonly lag?: Pick<WebhookLag, 'record'>,
  ) {
    this.sender = new WebhookSender({
      publicUrl: config.publicUrl,
      timeoutMs: config.webhooks.timeoutMs,
      allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
    });
    this.health = new WebhookHealthRecorder(store, this.logger);
  }

  onApplicationBootstrap(): void {
    setWebhookQueueDepthSource(() => this.queue.depth());
    this.start();
  }

  /** Before the database and the RPC server close: stop taking jobs and let requests in flight finish. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  /** Then the queue closes (until here the integration could still queue jobs). */
  async onApplicationShutdown(): Promise<void> {
    setWebhookQueueDepthSource(undefined);
    await this.close();
  }

  start(): void {
    const markAfter = Math.floor(this.config.webhooks.ackWaitMs / 3);
    this.sweepTimer = setInterval(() => this.sweep(markAfter), Math.min(SWEEP_INTERVAL_MS, Math.floor(markAfter / 2)));
    this.sweepTimer.unref();
    this.queue.start((message) => this.accept(message));
  }

  /** Both shutdown steps at once. */
  async stop(): Promise<void> {
    await this.drain();
    await this.close();
  }

  /** Stops pulling, hands back what waits in lanes and lets requests in flight finish for a few seconds. */
  async drain(): Promise<void> {
    if (this.closed) return;
    await this.queue.stop().catch((err: Error) => this.logger.warn(`webhook queue stop failed: ${err.message}`));
    for (const lane of this.lanes.values()) {
      for (const message of lane.waiting.splice(0)) this.release(message, () => message.nak(0));
    }
    if (this.running > 0) {
      await new Promise<void>((res) => {
        const timer = setTimeout(res, SHUTDOWN_GRACE_MS);
        this.idle = () => {
          clearTimeout(timer);
          res();
        };
      });
    }
  }

  /** Closes the queue: whatever is still unacked (requests that did not finish) is redelivered elsewhere. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweepTimer);
    this.giveUps.close();
    await this.queue.close().catch((err: Error) => this.logger.warn(`webhook queue close failed: ${err.message}`));
    await this.sender.destroy();
  }

  /** Takes a message from the queue: back to the queue if not due yet or its lane is full. */
  private accept(message: JobMessage): void {
    try {
      const wait = (message.job.not_before ?? 0) - Date.now();
      if (wait > 0) return message.nak(wait);
      const key = webhookKey(message.job.ids);
      let lane = this.lanes.get(key);
      if (!lane) {
        lane = new WebhookLane(this.config.webhooks.concurrency, LANE_MIN_WAITING, LANE_MAX_WAITING_UNKNOWN);
        this.lanes.set(key, lane);
      }
      const now = Date.now();
      this.held.set(message, now);
      if (lane.hasSlot(now)) this.run(lane, message);
      else if (lane.canWait(now)) lane.waiting.push(message);
      // Back to the queue (not an attempt) until about when the lane would reach it.
      else {
        webhookJobsHandedBack.inc({ reason: 'lane_full' });
        this.release(message, () => message.nak(lane.retryAfterMs(now)));
      }
    } catch (err) {
      this.logger.warn(`webhook job not accepted: ${(err as Error).message}`);
      this.release(message, () => message.nak(INTERNAL_ERROR_RETRY_MS));
    }
  }

  /** A first attempt about to be sent to an endpoint that is not slow by itself: how long it waited since the AS received its message (WebhookLag). */
  private measureWait(lane: WebhookLane, message: JobMessage, now: number): void {
    if (!this.lag || message.job.attempt !== 1 || (lane.averageLatencyMs ?? 0) > SLOW_ENDPOINT_MS) return;
    const receivedAt = Date.parse(message.job.up.received_at ?? '');
    if (!Number.isNaN(receivedAt)) this.lag.record(webhookKey(message.job.ids), Math.max(0, now - receivedAt), now);
  }

  private run(lane: WebhookLane, message: JobMessage): void {
    const started = Date.now();
    this.measureWait(lane, message, started);
    lane.started(started);
    this.running++;
    void this.deliver(message).finally(() => {
      const now = Date.now();
      lane.completed(now - started, now);
      this.running--;
      // As many as the lane has slots for now (more once its endpoint shows it is fast, fewer once it slows down).
      while (lane.waiting.length > 0 && lane.hasSlot(now)) this.run(lane, lane.waiting.shift() as JobMessage);
      if (this.running === 0) this.idle?.();
    });
  }

  private async deliver(message: JobMessage): Promise<void> {
    const { ids, ...job } = message.job;
    const key = webhookKey(ids);
    try {
      const webhook = await this.current(message);
      if (!webhook) {
        this.logger.debug(`webhook ${key}: deleted, paused or no longer taking ${job.kind}: job dropped`);
        webhookDeliveries.inc({ result: 'dropped' });
        return this.release(message, () => message.ack());
      }
      const delivery: Delivery = { ...job, webhook };
      const stopTimer = webhookDeliveryDuration.startTimer();
      const result = await this.sender.send(delivery);
      stopTimer();
      if (this.closed) return;
      if (result.ok) {
        webhookDeliveries.inc({ result: 'delivered' });
        this.health.succeeded(webhook);
        return this.release(message, () => message.ack());
      }
      this.recordFailure(delivery, result);
      if (!result.retryable || job.attempt >= this.config.webhooks.maxAttempts) {
        webhookDeliveries.inc({ result: 'failed' });
        this.giveUps.record(key, `after ${job.attempt} attempt(s): ${failureReason(result.error)}`);
        return this.release(message, () => message.ack());
      }
      webhookDeliveries.inc({ result: 'retry' });
      const delay = retryBackoffMs(job.attempt, this.config.webhooks);
      try {
        await this.queue.enqueue([{ ...message.job, attempt: job.attempt + 1, not_before: Date.now() + delay }]);
        this.release(message, () => message.ack());
      } catch (err) {
        this.logger.warn(`webhook ${key}: retry not queued, the job comes back later: ${(err as Error).message}`);
        this.release(message, () => message.nak(delay));
      }
    } catch (err) {
      this.logger.warn(`webhook ${key}: delivery failed unexpectedly: ${(err as Error).message}`);
      this.release(message, () => message.nak(INTERNAL_ERROR_RETRY_MS));
    }
  }

  /** The job's webhook as the registry has it now, if it is active and takes the job's message kind. */
  private async current(message: JobMessage): Promise<ApplicationWebhook | undefined> {
    const { ids, kind } = message.job;
    const webhook = (await this.webhooks.get(ids.application_ids.application_id)).find((w) => w.ids.webhook_id === ids.webhook_id);
    return webhook && messageConfig(webhook, kind) ? webhook : undefined;
  }

  /** `as.webhook.fail` (data: the error, never the request's headers) and the webhook's health. */
  private recordFailure(job: Delivery, result: Extract<DeliveryResult, { ok: false }>): void {
    this.logger.debug(`webhook ${webhookKey(job.webhook.ids)}: attempt ${job.attempt} failed: ${failureReason(result.error)}`);
    const ids = job.up.end_device_ids as Parameters<typeof deviceIdentifiers>[0];
    this.events.publish(AS_EVENTS.webhookFail, deviceIdentifiers(ids), {
      ctx: { request_id: '', correlation_ids: job.up.correlation_ids ?? [] },
      data: result.details,
    });
    this.health.failed(job.webhook, result.details);
  }

  private release(message: JobMessage, settle: () => void): void {
    this.held.delete(message);
    settle();
  }

  /**
   * Restarts the ack wait of every message held longer than `markAfter` since it was last marked,
   * hands back what waits in lanes whose endpoint got slow, and forgets idle lanes.
   */
  private sweep(markAfter: number): void {
    const now = Date.now();
    for (const [message, since] of this.held) {
      if (now - since < markAfter) continue;
      message.working();
      this.held.set(message, now);
    }
    for (const [key, lane] of this.lanes) {
      const excess = lane.takeExcess(now);
      if (excess.length > 0) webhookJobsHandedBack.inc({ reason: 'endpoint_slower' }, excess.length);
      // Each back about when the lane, with what it kept, would reach it.
      for (const [i, message] of excess.entries()) this.release(message, () => message.nak(lane.retryAfterMs(now, lane.waiting.length + i)));
      if (lane.stale(now)) this.lanes.delete(key);
    }
  }
}

/** For logs: the response status, or what went wrong without one (never a header or the body). */
function failureReason(error: StackError): string {
  const status = error.attributes.status_code;
  if (status !== undefined) return `${error.fullMessage}: HTTP ${String(status)}`;
  const cause = error.details;
  return cause ? `${error.fullMessage}: ${formatMessage(cause.message_format, cause.attributes)}` : error.fullMessage;
}
