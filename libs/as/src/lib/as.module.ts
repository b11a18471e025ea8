import { Module } from '@nestjs/common';
import { registryProviders } from '@lorawan/registry';
import { AsEndDeviceRegistryRpc } from './end-devices/as-end-device-registry.rpc';
import { AS_REGISTRY_POLICY } from './end-devices/as-registry.policy';
import { AS_MIGRATIONS } from './migrations';

/** The Application Server: formatters and application session keys (AsEndDeviceRegistry). */
@Module({
  providers: [...registryProviders('as', AS_MIGRATIONS, () => AS_REGISTRY_POLICY), AsEndDeviceRegistryRpc],
})
export class AsModule {}
