import { Module } from '@nestjs/common';
import { endDeviceRegistryController, registryProviders } from '@lorawan/registry';
import { NS_REGISTRY_POLICY } from './end-devices/ns-registry.policy';
import { NS_MIGRATIONS } from './migrations';

/** The Network Server: MAC settings and state, network session keys (NsEndDeviceRegistry). */
@Module({
  controllers: [endDeviceRegistryController('NsEndDeviceRegistry')],
  providers: registryProviders('ns', NS_MIGRATIONS, () => NS_REGISTRY_POLICY),
})
export class NsModule {}
