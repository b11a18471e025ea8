import { Module, type Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HealthService } from '@lorawan/component';
import { dataSourceProviders } from '@lorawan/persistence';
import { EndDeviceRegistryController } from './end-devices/end-device-registry.controller';
import { EndDeviceRegistryService } from './end-devices/end-device-registry.service';
import { END_DEVICE_STORE } from './end-devices/end-device.model';
import { TypeOrmEndDeviceStore } from './end-devices/typeorm-end-device.store';
import { isDataSourceOptions } from './is-data-source';
import { IDENTITY_CONTROLLERS, IDENTITY_PROVIDERS } from './entities';
import { ACCESS_CONTROLLERS, ACCESS_PROVIDERS } from './access';

/** The Identity Server: users, applications, gateways, API keys and rights, end-device metadata. */
@Module({
  controllers: [EndDeviceRegistryController, ...IDENTITY_CONTROLLERS, ...ACCESS_CONTROLLERS],
  providers: [
    ...dataSourceProviders(isDataSourceOptions, HealthService),
    { provide: END_DEVICE_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new TypeOrmEndDeviceStore(ds) },
    EndDeviceRegistryService,
    ...(IDENTITY_PROVIDERS as Provider[]),
    ...(ACCESS_PROVIDERS as Provider[]),
  ],
})
export class IsModule {}
