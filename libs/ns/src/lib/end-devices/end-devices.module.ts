import { Module } from '@nestjs/common';
import { DeviceRegistry, endDeviceRegistryController, registryProviders } from '@lorawan/registry';
import { nsMacDefaults } from '../mac/mac-defaults';
import { NS_MIGRATIONS } from '../migrations';
import { nsRegistryPolicy } from './ns-registry.policy';

/** The NS's end-device registry (NsEndDeviceRegistry): its database, its policy, and the registry the data plane reads and writes devices through. */
@Module({
  controllers: [endDeviceRegistryController('NsEndDeviceRegistry')],
  providers: [...registryProviders('ns', NS_MIGRATIONS, (config) => nsRegistryPolicy(nsMacDefaults(config)))],
  exports: [DeviceRegistry],
})
export class NsEndDevicesModule {}
