import type { StackConfig } from '@lorawan/config';
import { type ComponentDataSourceOptions } from '@lorawan/persistence';
import { registryDataSourceOptions } from '@lorawan/registry';
import { AS_MIGRATIONS } from './migrations';

/** The Application Server's own database (AS_DATABASE_URL, or `as.sqlite` under DATA_DIR). */
export function asDataSourceOptions(config: Pick<StackConfig, 'databaseUrls' | 'dataDir' | 'databaseTls'>): ComponentDataSourceOptions {
  return registryDataSourceOptions('as', AS_MIGRATIONS, config);
}
