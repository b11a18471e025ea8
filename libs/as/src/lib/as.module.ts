import { Module } from '@nestjs/common';
import { endDeviceRegistryRpc, registryProviders } from '@lorawan/registry';
import { AS_REGISTRY_POLICY } from './end-devices/as-registry.policy';
import { AS_MIGRATIONS } from './migrations';
import { WEBHOOK_PROVIDERS } from './webhooks';
import { DOWNLINK_PROVIDERS } from './downlinks';

/** The Application Server: formatters and application session keys (AsEndDeviceRegistry). */
@Module({
  providers: [...registryProviders('as', AS_MIGRATIONS, () => AS_REGISTRY_POLICY), endDeviceRegistryRpc('AsEndDeviceRegistry'), ...WEBHOOK_PROVIDERS, ...DOWNLINK_PROVIDERS],
})
export class AsModule {}
