import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  AS_EVENTS,
  type ApplicationPubSub,
  type ApplicationPubSubIdentifiers,
  type ApplicationUpJson,
  applicationUpKind,
  newUlid,
  type PubSubProvider,
} from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { isStackError, type StackError } from '@lorawan/errors';
import { pubsubMessages, setPubSubConnectedSource } from '@lorawan/observability';
import { decode, encode, PUBSUB, type PubSub, type Subscription } from '@lorawan/transport';
import { retryBackoffMs } from '../webhooks/delivery/retry-policy';
import { ErrConnectFailed, ErrConnectionLost, ErrIntegrationFailed, ErrPublishFailed } from './pubsub.errors';
import { PUBSUB_STORE, type PubSubStore } from './pubsub.store';
import type { PubSubChanges } from './pubsub-changes';
import { providerOf, topicOf } from './pubsub-topics';
import type { DownlinkOperation, ProviderConnection, PubSubProviderDriver } from './providers/provider';

/** The provider drivers by provider (the module provides MQTT.js and nats.js ones). */
export const PUBSUB_DRIVERS = Symbol('PUBSUB_DRIVERS');
export type PubSubDrivers = Readonly<Record<PubSubProvider, PubSubProviderDriver>>;

/** Where a downlink queue operation received on a Pub/Sub's topic goes (PubSubDownlinks). */
export type PubSubDownlinkHandler = (pubsub: ApplicationPubSub, operation: DownlinkOperation, topic: string, body: Buffer) => Promise<void>;

/** The broadcast that makes every AS replica re-open (or close) a Pub/Sub's connection. */
export const PUBSUB_CHANGED_SUBJECT = 'as.pubsub.changed';
/** One warning log per Pub/Sub per this interval at most (every failure is still an event). */
export const WARN_INTERVAL_MS = 60_000;

interface Running {
  pubsub: ApplicationPubSub;
  provider: PubSubProvider;
  connection: ProviderConnection;
  lastWarning: number;
}

const keyOf = (ids: ApplicationPubSubIdentifiers) => `${ids.application_ids.application_id}/${ids.pub_sub_id}`;

/**
 * The Pub/Sub connections of this AS replica (TTS `pkg/applicationserver/io/pubsub`): one per
 * stored Pub/Sub, opened at start; re-opened or closed on every replica when the registry sets or
 * deletes one (a transport broadcast, as ApplicationCache's invalidations). `publish` looks the
 * application's connections up in memory and hands each message to the clients without waiting
 * for a broker: a message for a connection that is down is dropped and counted, never buffered.
 * Failures become `as.pubsub.fail` events (the error, never a secret), a warning log at most once
 * per Pub/Sub per minute, and the `lorawan_as_pubsub_connected` gauge.
 */
@Injectable()
export class PubSubConnections implements PubSubChanges, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('PubSub');
  private readonly running = new Map<string, Running>();
  private readonly byApplication = new Map<string, Running[]>();
  /** Reloads of one Pub/Sub run one after the other. */
  private readonly reloads = new Map<string, Promise<void>>();
  private readonly replica = newUlid();
  private subscription?: Subscription;
  private downlinkHandler?: PubSubDownlinkHandler;
  private stopped = false;

  constructor(
    @Inject(PUBSUB_STORE) private readonly store: PubSubStore,
    @Inject(PUBSUB_DRIVERS) private readonly drivers: PubSubDrivers,
    @Inject(PUBSUB) private readonly transport: PubSub,
    @Inject(EventPublisher) private readonly events: EventPublisher,
    @Inject(STACK_CONFIG) private readonly config: StackConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = this.transport.subscribe(PUBSUB_CHANGED_SUBJECT, (payload) => {
      try {
        const change = decode<{ ids: ApplicationPubSubIdentifiers; replica: string }>(payload);
        if (change.replica !== this.replica) void this.reload(change.ids);
      } catch (err) {
        this.logger.warn(`bad message on ${PUBSUB_CHANGED_SUBJECT}: ${(err as Error).message}`);
      }
    });
    setPubSubConnectedSource(() => this.gauge());
    try {
      for (const pubsub of await this.store.listAll()) this.start(pubsub);
    } catch (err) {
      this.logger.error({ error: (err as Error).message }, 'Pub/Sub integrations not started: the store did not answer');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.subscription?.unsubscribe();
    await Promise.all([...this.running.values()].map((r) => this.stop(r, false)));
  }

  /** The downlink entry point (set once by PubSubDownlinks). */
  onDownlink(handler: PubSubDownlinkHandler): void {
    this.downlinkHandler = handler;
  }

  /** After a Set or Delete: re-opens (or closes) the Pub/Sub here, then on every other replica. */
  async changed(ids: ApplicationPubSubIdentifiers): Promise<void> {
    await this.reload(ids);
    this.transport.publish(PUBSUB_CHANGED_SUBJECT, encode({ ids, replica: this.replica }));
  }

  /** Whether this replica runs the Pub/Sub and is connected to its broker (tests, health). */
  isConnected(ids: ApplicationPubSubIdentifiers): boolean {
    return this.running.get(keyOf(ids))?.connection.connected ?? false;
  }

  /** Hands the message to each of the application's Pub/Subs that has its kind enabled; never waits for a broker. */
  publish(up: ApplicationUpJson): void {
    const kind = applicationUpKind(up);
    if (!kind) return;
    const running = this.byApplication.get(up.end_device_ids.application_ids.application_id);
    if (!running) return;
    let body: Buffer | undefined;
    for (const r of running) {
      const topic = topicOf(r.pubsub, r.provider, kind);
      if (topic === undefined) continue;
      body ??= Buffer.from(JSON.stringify(up));
      const handed = r.connection.publish(topic, body, (err) => {
        if (!err) return pubsubMessages.inc({ provider: r.provider, result: 'published' });
        pubsubMessages.inc({ provider: r.provider, result: 'failed' });
        this.fail(r, ErrPublishFailed.with({ provider: r.provider, topic, message: err.message }), up.correlation_ids ?? []);
      });
      if (!handed) pubsubMessages.inc({ provider: r.provider, result: 'dropped' });
    }
  }

  private reload(ids: ApplicationPubSubIdentifiers): Promise<void> {
    const key = keyOf(ids);
    const next = (this.reloads.get(key) ?? Promise.resolve()).then(async () => {
      if (this.stopped) return;
      const current = this.running.get(key);
      if (current) await this.stop(current, true);
      const pubsub = await this.store.get(ids.application_ids.application_id, ids.pub_sub_id);
      if (pubsub && !this.stopped) this.start(pubsub);
    });
    const settled = next.catch((err: unknown) => this.logger.warn({ pub_sub: key, error: (err as Error).message }, 'Pub/Sub not reloaded'));
    this.reloads.set(key, settled);
    void settled.then(() => {
      if (this.reloads.get(key) === settled) this.reloads.delete(key);
    });
    return next;
  }

  private start(pubsub: ApplicationPubSub): void {
    const provider = providerOf(pubsub);
    if (!provider) return;
    const { sharedSubscriptions, shareGroup, reconnectMaxMs } = this.config.as.pubsub;
    const r = { pubsub, provider, lastWarning: 0 } as Running;
    r.connection = this.drivers[provider].open(
      pubsub,
      {
        connected: () => this.connected(r),
        disconnected: (message, wasConnected) => this.fail(r, (wasConnected ? ErrConnectionLost : ErrConnectFailed).with({ provider, message }), []),
        downlink: (operation, topic, body) => void this.downlink(r, operation, topic, body),
      },
      {
        shareGroup: sharedSubscriptions ? shareGroup : undefined,
        queueGroup: shareGroup,
        backoffMs: (attempt) => retryBackoffMs(attempt, { retryBaseMs: 1000, retryMaxMs: reconnectMaxMs }),
      },
    );
    const key = keyOf(pubsub.ids);
    this.running.set(key, r);
    const app = pubsub.ids.application_ids.application_id;
    this.byApplication.set(app, [...(this.byApplication.get(app) ?? []), r]);
  }

  private async stop(r: Running, publishEvent: boolean): Promise<void> {
    const key = keyOf(r.pubsub.ids);
    if (this.running.get(key) === r) this.running.delete(key);
    const app = r.pubsub.ids.application_ids.application_id;
    const rest = (this.byApplication.get(app) ?? []).filter((other) => other !== r);
    if (rest.length > 0) this.byApplication.set(app, rest);
    else this.byApplication.delete(app);
    await r.connection.close();
    if (publishEvent) this.events.publish(AS_EVENTS.pubsubStop, applicationOf(r.pubsub), { data: r.pubsub.ids });
  }

  private connected(r: Running): void {
    if (this.running.get(keyOf(r.pubsub.ids)) !== r) return;
    this.logger.log({ pub_sub: keyOf(r.pubsub.ids), provider: r.provider }, 'Pub/Sub connected');
    this.events.publish(AS_EVENTS.pubsubStart, applicationOf(r.pubsub), { data: r.pubsub.ids });
  }

  private async downlink(r: Running, operation: DownlinkOperation, topic: string, body: Buffer): Promise<void> {
    if (!this.downlinkHandler) return;
    try {
      await this.downlinkHandler(r.pubsub, operation, topic, body);
      pubsubMessages.inc({ provider: r.provider, result: 'downlink' });
    } catch (err) {
      pubsubMessages.inc({ provider: r.provider, result: 'downlink_invalid' });
      this.fail(r, err as StackError, []);
    }
  }

  /** `as.pubsub.fail` with the error as the cause of `integration_failed`, and a warning at most once per WARN_INTERVAL_MS. */
  private fail(r: Running, cause: StackError | Error, correlationIds: string[]): void {
    if (this.running.get(keyOf(r.pubsub.ids)) !== r) return;
    const error = ErrIntegrationFailed.with(
      { application_uid: r.pubsub.ids.application_ids.application_id, pub_sub_id: r.pubsub.ids.pub_sub_id },
      isStackError(cause) ? cause : undefined,
    );
    this.events.publish(AS_EVENTS.pubsubFail, applicationOf(r.pubsub), { ctx: { correlation_ids: correlationIds }, data: error.toDetails() });
    const now = Date.now();
    if (now - r.lastWarning < WARN_INTERVAL_MS) return;
    r.lastWarning = now;
    this.logger.warn({ pub_sub: keyOf(r.pubsub.ids), provider: r.provider, error: isStackError(cause) ? cause.fullMessage : cause.message }, 'Pub/Sub failed');
  }

  private gauge(): Array<{ provider: string; connected: number; total: number }> {
    return (['nats', 'mqtt'] as const).map((provider) => {
      const all = [...this.running.values()].filter((r) => r.provider === provider);
      return { provider, connected: all.filter((r) => r.connection.connected).length, total: all.length };
    });
  }
}

const applicationOf = (pubsub: ApplicationPubSub) => ({ application_ids: { application_id: pubsub.ids.application_ids.application_id } });
