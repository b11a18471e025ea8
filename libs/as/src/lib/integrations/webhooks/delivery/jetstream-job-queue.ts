import { Logger } from '@nestjs/common';
import {
  AckPolicy,
  type Consumer,
  type ConsumerConfig,
  DeliverPolicy,
  DiscardPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  nanos,
  type NatsConnection,
  type NatsError,
  RetentionPolicy,
  StorageType,
} from 'nats';
import { connectNats, ensureStream, JS_CONSUMER_NOT_FOUND, natsInboxPrefix, type NatsSecurity, natsSecurityOptions, settleWithin } from '@lorawan/transport';
import { AckedPublisher } from './acked-publisher';
import { ErrQueueFull } from './delivery.errors';
import { DEFAULT_QUEUE_MAX_JOBS, type JobMessage, type WebhookJob, type WebhookJobQueue } from './webhook-job';

export interface JetStreamJobQueueOptions {
  url: string;
  /** TLS and credentials (NATS_TLS_*, NATS_USER). */
  security?: NatsSecurity;
  /** NATS_SUBJECT_PREFIX: subjects `<prefix>.as.webhooks.…`, stream `WEBHOOKS_<prefix>`. */
  subjectPrefix?: string;
  /** How long JetStream waits for an ack before handing a message to another worker. */
  ackWaitMs: number;
  /** Messages this replica holds unsettled, per consumer. */
  maxInFlight: number;
  /** WEBHOOK_QUEUE_MAX_JOBS: the stream's `max_msgs`; beyond, a publish is refused and `enqueue` fails with `queue_full`. Default `DEFAULT_QUEUE_MAX_JOBS`. */
  maxJobs?: number;
  name?: string;
}

/** How JetStream refuses a publish to a stream at its `max_msgs` / `max_bytes` with the `new` discard policy. */
const STREAM_FULL = /maximum (?:messages|bytes) exceeded/i;

/** JetStream API error codes (nats-server `server/errors.json`). */
const FETCH_EXPIRES_MS = 2_000;
/** How long closing waits for the server to have the last acks. */
const CLOSE_FLUSH_TIMEOUT_MS = 2_000;
/** How long a publish may wait for the stream's acknowledgement. */
const PUBLISH_TIMEOUT_MS = 5_000;
const PULL_ERROR_PAUSE_MS = 1_000;
/** First attempts: the consumer every replica pulls from. */
const DELIVER_CONSUMER = 'as-webhooks';
/** Retries: their own consumer, so jobs waiting out a backoff (unacked until due) never hold up first attempts. */
const RETRY_CONSUMER = 'as-webhooks-retry';
/** Server-side bounds of unacked messages over all replicas. Retries pulled early stay unacked until due, hence the larger bound. */
const DELIVER_MAX_ACK_PENDING = 20_000;
const RETRY_MAX_ACK_PENDING = 100_000;

/** `WEBHOOKS`, or `WEBHOOKS_<prefix>` when the stack runs under a subject prefix. */
export function webhookStreamName(subjectPrefix?: string): string {
  return subjectPrefix ? `WEBHOOKS_${subjectPrefix}` : 'WEBHOOKS';
}

function subjectBase(subjectPrefix?: string): string {
  return `${subjectPrefix ? `${subjectPrefix}.` : ''}as.webhooks`;
}

/**
 * Distributed mode: delivery jobs on a JetStream work queue (file storage, a message is removed
 * once acked) shared by every AS replica through two durable pull consumers, first attempts
 * (`…deliver.<app>.<webhook>`) and retries (`…retry.<app>.<webhook>`). A message is acked only
 * after a 2xx or a final give-up; one whose worker died is redelivered after the ack wait to any
 * replica (duplicates are possible, loss is not). Each replica pulls in batches as long as it
 * holds fewer than `maxInFlight` unsettled messages per consumer.
 */
export class JetStreamJobQueue implements WebhookJobQueue {
  private readonly logger = new Logger('WebhookQueue');
  private running = false;
  private readonly pullers: Puller[] = [];
  private readonly publisher: AckedPublisher;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly streamName: string,
    private readonly base: string,
    private readonly o: JetStreamJobQueueOptions,
  ) {
    this.publisher = new AckedPublisher(nc, PUBLISH_TIMEOUT_MS, natsInboxPrefix(o.security?.user));
  }

  /** Connects (its own connection) and makes sure the stream and both consumers exist with this configuration. */
  static async open(o: JetStreamJobQueueOptions): Promise<JetStreamJobQueue> {
    const nc = await connectNats({
      servers: o.url,
      name: o.name ?? 'as-webhooks',
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      ...natsSecurityOptions(o.security),
    });
    try {
      const jsm = await nc.jetstreamManager();
      const streamName = webhookStreamName(o.subjectPrefix);
      const base = subjectBase(o.subjectPrefix);
      // Retention and storage are fixed at creation; a newer version may only have added subjects.
      await ensureStream(
        jsm,
        {
          name: streamName,
          description: 'AS webhook delivery jobs',
          subjects: [`${base}.deliver.>`, `${base}.retry.>`],
          retention: RetentionPolicy.Workqueue,
          storage: StorageType.File,
          num_replicas: 1,
          max_msgs: o.maxJobs ?? DEFAULT_QUEUE_MAX_JOBS,
          discard: DiscardPolicy.New,
        },
        ['subjects', 'max_msgs', 'discard'],
      );
      await ensureConsumer(jsm, streamName, consumerConfig(DELIVER_CONSUMER, `${base}.deliver.>`, o.ackWaitMs, DELIVER_MAX_ACK_PENDING));
      await ensureConsumer(jsm, streamName, consumerConfig(RETRY_CONSUMER, `${base}.retry.>`, o.ackWaitMs, RETRY_MAX_ACK_PENDING));
      return new JetStreamJobQueue(nc, nc.jetstream(), streamName, base, o);
    } catch (err) {
      await nc.close();
      throw err;
    }
  }

  /** Publishes every job at once and waits for all the stream's acknowledgements; a full stream is `queue_full`. */
  async enqueue(jobs: WebhookJob[]): Promise<void> {
    try {
      await Promise.all(jobs.map((job) => this.publisher.publish(this.subject(job), Buffer.from(JSON.stringify(job)))));
    } catch (err) {
      if (err instanceof Error && STREAM_FULL.test(err.message)) throw ErrQueueFull.with({ max_jobs: this.o.maxJobs ?? DEFAULT_QUEUE_MAX_JOBS });
      throw err;
    }
  }

  start(handler: (message: JobMessage) => void): void {
    if (this.running) return;
    this.running = true;
    for (const name of [DELIVER_CONSUMER, RETRY_CONSUMER]) {
      const puller = new Puller(this.o.maxInFlight, handler, this.logger);
      this.pullers.push(puller);
      void puller.run(
        () => this.js.consumers.get(this.streamName, name),
        () => this.running,
      );
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.pullers.map((p) => p.stop()));
  }

  /** Sends the acks and naks given so far, then closes the connection: messages still unsettled go to another worker after the ack wait. */
  async close(): Promise<void> {
    this.running = false;
    for (const p of this.pullers) {
      p.abandon();
      p.flushOutbox();
    }
    this.publisher.close();
    if (this.nc.isClosed()) return;
    await settleWithin(this.nc.flush(), CLOSE_FLUSH_TIMEOUT_MS, undefined);
    await this.nc.close();
  }

  async healthy(): Promise<boolean> {
    return !this.nc.isClosed();
  }

  /** The work queue's messages: a job leaves the stream when it is acknowledged. */
  async depth(): Promise<number> {
    const jsm = await this.nc.jetstreamManager();
    return (await jsm.streams.info(this.streamName)).state.messages;
  }

  private subject(job: WebhookJob): string {
    const ids = job.ids;
    return `${this.base}.${job.attempt > 1 ? 'retry' : 'deliver'}.${ids.application_ids.application_id}.${ids.webhook_id}`;
  }
}

/**
 * One consumer's pull loop: fetches as many messages as there are free in-flight slots (once at
 * least a quarter of them are free), hands each to the handler, and counts it until settled.
 * Acks and naks of one event-loop turn go out together (one socket write instead of one each).
 */
class Puller {
  private unsettled = 0;
  private outbox: Array<() => void> = [];
  private wake?: () => void;
  private batch?: { stop(): void };
  private done?: Promise<void>;

  constructor(
    private readonly maxInFlight: number,
    private readonly handler: (message: JobMessage) => void,
    private readonly logger: Logger,
  ) {}

  run(consumer: () => Promise<Consumer>, running: () => boolean): Promise<void> {
    this.done = this.loop(consumer, running);
    return this.done;
  }

  async stop(): Promise<void> {
    this.abandon();
    await this.done;
  }

  /** Ends the current fetch and the loop. */
  abandon(): void {
    this.batch?.stop();
    this.wake?.();
  }

  private async loop(getConsumer: () => Promise<Consumer>, running: () => boolean): Promise<void> {
    let consumer: Consumer | undefined;
    const lowWater = Math.max(1, Math.floor(this.maxInFlight / 4));
    while (running()) {
      try {
        const free = this.maxInFlight - this.unsettled;
        if (free < lowWater) {
          await new Promise<void>((res) => (this.wake = res));
          continue;
        }
        consumer ??= await getConsumer();
        const batch = await consumer.fetch({ max_messages: free, expires: FETCH_EXPIRES_MS });
        this.batch = batch;
        for await (const m of batch) this.dispatch(m);
      } catch (err) {
        if (!running()) break;
        this.logger.warn(`webhook queue pull failed: ${(err as Error).message}`);
        consumer = undefined;
        await new Promise((res) => setTimeout(res, PULL_ERROR_PAUSE_MS));
      } finally {
        this.batch = undefined;
      }
    }
  }

  flushOutbox(): void {
    const outbox = this.outbox;
    this.outbox = [];
    for (const settle of outbox) quietly(settle);
  }

  private dispatch(m: JsMsg): void {
    let job: WebhookJob;
    try {
      job = JSON.parse(m.string()) as WebhookJob;
    } catch {
      this.logger.warn(`dropping an undecodable webhook job (${m.subject})`);
      m.ack();
      return;
    }
    this.unsettled++;
    let settled = false;
    const settle = (how: () => void) => {
      if (settled) return;
      settled = true;
      this.unsettled--;
      if (this.wake && this.maxInFlight - this.unsettled >= Math.max(1, Math.floor(this.maxInFlight / 4))) {
        const wake = this.wake;
        this.wake = undefined;
        wake();
      }
      if (this.outbox.push(how) === 1) setImmediate(() => this.flushOutbox());
    };
    this.handler({
      job,
      ack: () => settle(() => m.ack()),
      nak: (delayMs) => settle(() => m.nak(Math.max(0, Math.round(delayMs)))),
      working: () => quietly(() => m.working()),
    });
  }
}

/** Acks on a closed connection throw; the message is then redelivered, which is what we want. */
function quietly(fn: () => void): void {
  try {
    fn();
  } catch {
    // connection closed: JetStream redelivers after the ack wait
  }
}

function consumerConfig(name: string, filter: string, ackWaitMs: number, maxAckPending: number): Partial<ConsumerConfig> & { durable_name: string } {
  return {
    durable_name: name,
    filter_subject: filter,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(ackWaitMs),
    max_deliver: -1,
    max_ack_pending: maxAckPending,
  };
}

/** Creates the durable consumer, or updates its ack wait and bounds; idempotent like ensureStream. */
async function ensureConsumer(jsm: JetStreamManager, stream: string, config: ReturnType<typeof consumerConfig>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const existing = await jsm.consumers.info(stream, config.durable_name).catch((err: NatsError) => {
      if (err.api_error?.err_code === JS_CONSUMER_NOT_FOUND) return undefined;
      throw err;
    });
    try {
      if (!existing) await jsm.consumers.add(stream, config);
      else if (existing.config.ack_wait !== config.ack_wait || existing.config.max_ack_pending !== config.max_ack_pending) {
        await jsm.consumers.update(stream, config.durable_name, {
          ack_wait: config.ack_wait,
          max_ack_pending: config.max_ack_pending,
          max_deliver: config.max_deliver,
        });
      }
      return;
    } catch (err) {
      if (attempt < 5) continue;
      throw err;
    }
  }
}
