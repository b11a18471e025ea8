import { join } from 'node:path';
import { Inject, Logger, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { STREAM_REPLICA_HEARTBEAT_MS, STREAM_SESSION_TIMEOUT_MS } from '@lorawan/api';
import { HealthService } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { type PubSub, PUBSUB } from '@lorawan/transport';
import { EventsHub } from './events-hub';
import { EventsController } from './events.controller';
import type { EventHistory } from './history/event-history';
import { JetStreamEventHistory } from './history/jetstream-history';
import { SqlEventHistory } from './history/sql-history';
import { eventsDataSourceOptions } from './events-data-source';

export const EVENT_HISTORY = Symbol('EVENT_HISTORY');

/** Session sweeps: a session is dropped between STREAM_SESSION_TIMEOUT_MS and that plus this after its last ping. */
const SWEEP_INTERVAL_MS = 5_000;
/** Messages handed on to the transport per event-loop turn. */
const FLUSH_BUDGET = 10_000;

/** History from the configuration: JetStream with NATS (distributed), the events service's SQLite file without (embedded). */
export async function openEventHistory(config: StackConfig): Promise<EventHistory> {
  if (!config.natsUrl) {
    const options = eventsDataSourceOptions(config);
    const history = await SqlEventHistory.open(options, config.autoMigrate, { max: config.eventsHistoryMax, retentionMs: config.eventsRetentionMs });
    const file = join(options.dataDir, `${options.component}.sqlite`);
    new Logger('Events').log({ file }, `event history in SQLite ${file}`);
    return history;
  }
  const history = await JetStreamEventHistory.open({
    url: config.natsUrl,
    security: config.natsSecurity,
    subjectPrefix: config.natsSubjectPrefix,
    retentionMs: config.eventsRetentionMs,
    scanMax: config.eventsHistoryMax,
    maxBytes: config.eventsHistoryMaxBytes,
  });
  new Logger('Events').log(`event history in JetStream stream ${history.streamName}`);
  return history;
}

/**
 * The EVENTS component: `Events.Stream` (served in the `events` queue group, so any replica opens
 * a stream) and the live fan-out of every event to the sessions this replica serves, with history
 * from JetStream (distributed) or its SQLite file (embedded).
 */
@Module({
  providers: [
    {
      provide: EVENT_HISTORY,
      inject: [STACK_CONFIG, HealthService],
      useFactory: async (config: StackConfig, health: HealthService) => {
        const history = await openEventHistory(config);
        health.register({ name: 'event-history', isHealthy: () => history.healthy() });
        return history;
      },
    },
    {
      provide: EventsHub,
      inject: [PUBSUB, EVENT_HISTORY, STACK_CONFIG],
      useFactory: (pubsub: PubSub, history: EventHistory, config: StackConfig) =>
        new EventsHub(pubsub, history, {
          bufferSize: config.eventsStreamBuffer,
          sessionTimeoutMs: STREAM_SESSION_TIMEOUT_MS,
          sweepIntervalMs: SWEEP_INTERVAL_MS,
          flushBudget: FLUSH_BUDGET,
          heartbeatMs: STREAM_REPLICA_HEARTBEAT_MS,
        }),
    },
  ],
  controllers: [EventsController],
})
export class EventsModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly hub: EventsHub,
    @Inject(EVENT_HISTORY) private readonly history: EventHistory,
  ) {}

  onModuleInit(): void {
    this.hub.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.hub.stop();
    await this.history.close();
  }
}
