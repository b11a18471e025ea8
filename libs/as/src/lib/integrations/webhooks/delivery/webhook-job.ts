import type { ApplicationUpJson, ApplicationUpKind, ApplicationWebhook, ApplicationWebhookIdentifiers } from '@lorawan/api';

/**
 * One delivery of one ApplicationUp to one webhook, as queued: the webhook's identifiers (its
 * settings are read when the job is sent, so the queue holds no headers or API keys, and a fixed
 * URL applies to the next retry), the message, and the job's retry state: the attempt it is and,
 * for a retry, the earliest time it may be sent.
 */
export interface WebhookJob {
  ids: ApplicationWebhookIdentifiers;
  up: ApplicationUpJson;
  kind: ApplicationUpKind;
  /** 1 for the first attempt. */
  attempt: number;
  /** Epoch ms before which the job must not be sent (retries, after their backoff). */
  not_before?: number;
}

/** A job with the webhook's current settings: what the sender sends. */
export type Delivery = Omit<WebhookJob, 'ids'> & { webhook: ApplicationWebhook };

/** The webhook's settings for a message kind (`{}` included), or undefined when it does not take that kind. */
export function messageConfig(webhook: ApplicationWebhook, kind: ApplicationUpKind): { path?: string } | undefined {
  const config = webhook[kind];
  return typeof config === 'object' && config !== null ? config : undefined;
}

/** `<application>/<webhook>`: the key of a webhook's lane and health state. */
export function webhookKey(ids: ApplicationWebhookIdentifiers): string {
  return `${ids.application_ids.application_id}/${ids.webhook_id}`;
}

/**
 * A job handed to the worker. Until it is settled (`ack` or `nak`) the queue counts it as in
 * flight, and in distributed mode JetStream hands it to another worker if this one does not
 * settle it within the ack wait (a replica that died mid-delivery).
 */
export interface JobMessage {
  readonly job: WebhookJob;
  /** Done with it (delivered or given up): it is removed from the queue. */
  ack(): void;
  /** Hand it back to be delivered again after `delayMs`; not an attempt. */
  nak(delayMs: number): void;
  /** Still being worked on: restarts the ack wait. */
  working(): void;
}

/**
 * The durable queue of delivery jobs: JetStream in distributed mode (shared by every AS
 * replica), a table of the AS's database in embedded mode. Both bound how many messages this
 * replica has unsettled.
 */
export interface WebhookJobQueue {
  /** Resolves once every job has been accepted by the queue (JetStream: each publish acknowledged). */
  enqueue(jobs: WebhookJob[]): Promise<void>;
  /** Starts handing messages to `handler` (never more than the queue's in-flight bound unsettled). */
  start(handler: (message: JobMessage) => void): void;
  /** Stops taking messages; unsettled ones may still be settled until `close`. */
  stop(): Promise<void>;
  close(): Promise<void>;
  healthy(): Promise<boolean>;
  /** Jobs in the queue not settled yet (waiting, being delivered, or waiting out a backoff): the `lorawan_webhook_queue_depth` gauge. */
  depth(): Promise<number>;
}

export const WEBHOOK_JOB_QUEUE = Symbol('WEBHOOK_JOB_QUEUE');

/** Jobs a queue holds at most when none is configured (WEBHOOK_QUEUE_MAX_JOBS's default; about 1–2 KiB each): beyond, new messages are refused. */
export const DEFAULT_QUEUE_MAX_JOBS = 100_000;
