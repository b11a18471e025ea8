import type { StackConfig } from '@lorawan/config';
import type { ComponentDataSourceOptions } from '@lorawan/persistence';
import { EndDeviceEntity } from './end-devices/end-device.entity';
import { IS_MIGRATIONS } from './migrations';
import { IDENTITY_ENTITIES } from './entities';
import { ACCESS_ENTITIES } from './access';

export const IS_ENTITIES = [EndDeviceEntity, ...IDENTITY_ENTITIES, ...ACCESS_ENTITIES];

/** The Identity Server's own database (IS_DATABASE_URL, or `is.sqlite` under DATA_DIR). */
export function isDataSourceOptions(config: Pick<StackConfig, 'databaseUrls' | 'dataDir' | 'databaseTls'>): ComponentDataSourceOptions {
  return { component: 'is', url: config.databaseUrls.is, tls: config.databaseTls, dataDir: config.dataDir, entities: IS_ENTITIES, migrations: IS_MIGRATIONS };
}
