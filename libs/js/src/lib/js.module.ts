import { Module } from '@nestjs/common';
import { endDeviceRegistryRpc, registryProviders } from '@lorawan/registry';
import { JS_REGISTRY_POLICY } from './end-devices/js-registry.policy';
import { JS_MIGRATIONS } from './migrations';

/** The Join Server: root keys (JsEndDeviceRegistry); join handling arrives with the data plane. */
@Module({
  providers: [...registryProviders('js', JS_MIGRATIONS, () => JS_REGISTRY_POLICY), endDeviceRegistryRpc('JsEndDeviceRegistry')],
})
export class JsModule {}
