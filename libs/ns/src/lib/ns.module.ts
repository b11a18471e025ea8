import { Module } from '@nestjs/common';
import { registryProviders } from '@lorawan/registry';
import { NsEndDeviceRegistryRpc } from './end-devices/ns-end-device-registry.rpc';
import { NS_REGISTRY_POLICY } from './end-devices/ns-registry.policy';
import { NS_MIGRATIONS } from './migrations';

/** The Network Server: MAC settings and state, network session keys (NsEndDeviceRegistry). */
@Module({
  providers: [...registryProviders('ns', NS_MIGRATIONS, () => NS_REGISTRY_POLICY), NsEndDeviceRegistryRpc],
})
export class NsModule {}
