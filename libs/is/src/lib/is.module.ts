import { Inject, Module, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { HealthService } from '@lorawan/component';
import { DatabaseHealthIndicator, openDataSource } from '@lorawan/persistence';
import { EndDeviceRegistryRpc } from './end-devices/end-device-registry.rpc';
import { EndDeviceRegistryService } from './end-devices/end-device-registry.service';
import { END_DEVICE_STORE } from './end-devices/end-device.model';
import { TypeOrmEndDeviceStore } from './end-devices/typeorm-end-device.store';
import { isDataSourceOptions } from './is-data-source';
import { IDENTITY_PROVIDERS } from './entities';
import { ACCESS_PROVIDERS } from './access';

/** The Identity Server: users, applications, gateways, API keys and rights, end-device metadata. */
@Module({
  providers: [
    {
      provide: DataSource,
      inject: [STACK_CONFIG, HealthService],
      useFactory: async (config: StackConfig, health: HealthService) => {
        const ds = await openDataSource(isDataSourceOptions(config), config.autoMigrate);
        health.register(new DatabaseHealthIndicator(ds));
        return ds;
      },
    },
    { provide: END_DEVICE_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new TypeOrmEndDeviceStore(ds) },
    EndDeviceRegistryService,
    EndDeviceRegistryRpc,
    ...(IDENTITY_PROVIDERS as Provider[]),
    ...(ACCESS_PROVIDERS as Provider[]),
  ],
})
export class IsModule implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}
