import { Module } from '@nestjs/common';
import { endDeviceRegistryController, registryProviders } from '@lorawan/registry';
import { JS_REGISTRY_POLICY } from './end-devices/js-registry.policy';
import { JS_MIGRATIONS } from './migrations';

/** The Join Server: root keys (JsEndDeviceRegistry); join handling arrives with the data plane. */
@Module({
  controllers: [endDeviceRegistryController('JsEndDeviceRegistry')],
  providers: registryProviders('js', JS_MIGRATIONS, () => JS_REGISTRY_POLICY),
})
export class JsModule {}
