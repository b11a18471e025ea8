import type { StackConfig } from '@lorawan/config';
import { type ComponentDataSourceOptions } from '@lorawan/persistence';
import { registryDataSourceOptions } from '@lorawan/registry';
import { JS_MIGRATIONS } from './migrations';

/** The Join Server's own database (JS_DATABASE_URL, or `js.sqlite` under DATA_DIR). */
export function jsDataSourceOptions(config: Pick<StackConfig, 'databaseUrls' | 'dataDir' | 'databaseTls'>): ComponentDataSourceOptions {
  return registryDataSourceOptions('js', JS_MIGRATIONS, config);
}
