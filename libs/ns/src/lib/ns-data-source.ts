import type { StackConfig } from '@lorawan/config';
import { type ComponentDataSourceOptions } from '@lorawan/persistence';
import { registryDataSourceOptions } from '@lorawan/registry';
import { NS_MIGRATIONS } from './migrations';

/** The Network Server's own database (NS_DATABASE_URL, or `ns.sqlite` under DATA_DIR). */
export function nsDataSourceOptions(config: Pick<StackConfig, 'databaseUrls' | 'dataDir' | 'databaseTls'>): ComponentDataSourceOptions {
  return registryDataSourceOptions('ns', NS_MIGRATIONS, config);
}
