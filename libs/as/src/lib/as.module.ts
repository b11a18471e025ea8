import { Module } from '@nestjs/common';
import { endDeviceRegistryController, registryProviders } from '@lorawan/registry';
import { AS_REGISTRY_POLICY } from './end-devices/as-registry.policy';
import { AS_MIGRATIONS } from './migrations';
import { WEBHOOK_CONTROLLERS, WEBHOOK_PROVIDERS } from './integrations/webhooks';
import { DOWNLINK_CONTROLLERS, DOWNLINK_PROVIDERS } from './downlinks';
import { WEBHOOK_DELIVERY_PROVIDERS } from './integrations/webhooks/delivery';
import { UPLINK_CONTROLLERS, UPLINK_PROVIDERS } from './uplinks';
import { FORMATTER_PROVIDERS } from './formatters';

/** The Application Server: formatters and application session keys (AsEndDeviceRegistry). */
@Module({
  controllers: [endDeviceRegistryController('AsEndDeviceRegistry'), ...WEBHOOK_CONTROLLERS, ...DOWNLINK_CONTROLLERS, ...UPLINK_CONTROLLERS],
  providers: [
    ...registryProviders('as', AS_MIGRATIONS, () => AS_REGISTRY_POLICY),
    ...FORMATTER_PROVIDERS,
    ...WEBHOOK_PROVIDERS,
    ...DOWNLINK_PROVIDERS,
    ...WEBHOOK_DELIVERY_PROVIDERS,
    ...UPLINK_PROVIDERS,
  ],
})
export class AsModule {}
