import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DeviceRegistry, endDeviceRegistryController, registryProviders } from '@lorawan/registry';
import { AS_MIGRATIONS } from '../migrations';
import { AppSKeys } from './app-s-keys.service';
import type { AsDevice } from './as-device';
import { AS_REGISTRY_POLICY } from './as-registry.policy';

/**
 * The AS's end devices: its database (opened and migrated with the registry; the link, webhook
 * and delivery-job stores share it, hence exported), the AsEndDeviceRegistry and its RPC handlers,
 * and the AppSKeys of the devices' sessions.
 */
@Module({
  controllers: [endDeviceRegistryController('AsEndDeviceRegistry')],
  providers: [...registryProviders<AsDevice>('as', AS_MIGRATIONS, () => AS_REGISTRY_POLICY), AppSKeys],
  exports: [DataSource, DeviceRegistry, AppSKeys],
})
export class EndDevicesModule {}
