import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { endDeviceRegistryController, registryProviders } from '@lorawan/registry';
import { JS_REGISTRY_POLICY } from './end-devices/js-registry.policy';
import { JoinController } from './join/join.controller';
import { JoinService } from './join/join.service';
import { SESSION_KEY_STORE, TypeOrmSessionKeyStore } from './join/session-key.store';
import { JS_MIGRATIONS } from './migrations';

/** The Join Server: root keys (JsEndDeviceRegistry), join handling (NsJs.HandleJoin) and the session keys of accepted joins. */
@Module({
  controllers: [endDeviceRegistryController('JsEndDeviceRegistry'), JoinController],
  providers: [
    ...registryProviders('js', JS_MIGRATIONS, () => JS_REGISTRY_POLICY),
    { provide: SESSION_KEY_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new TypeOrmSessionKeyStore(ds) },
    JoinService,
  ],
})
export class JsModule {}
