import type { StackConfig } from '@lorawan/config';
import type { ComponentDataSourceOptions } from '@lorawan/persistence';
import { EventHistoryEntity } from './history/event-history.entity';
import { EVENTS_MIGRATIONS } from './migrations';

/**
 * The events service's own database in embedded mode: `events.sqlite` under DATA_DIR, holding the
 * event history. Distributed mode keeps its history in JetStream and has no database.
 */
export function eventsDataSourceOptions(config: Pick<StackConfig, 'dataDir'>): ComponentDataSourceOptions {
  return { component: 'events', dataDir: config.dataDir, entities: [EventHistoryEntity], migrations: EVENTS_MIGRATIONS };
}
