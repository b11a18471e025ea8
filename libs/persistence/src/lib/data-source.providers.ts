import { Inject, Injectable, type InjectionToken, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { type ComponentDataSourceOptions, openDataSource } from './data-source';
import { DatabaseHealthIndicator } from './database-health';

/** Where a component registers its readiness checks (the component runtime's HealthService). */
export interface HealthRegistry {
  register(indicator: { readonly name: string; isHealthy(): Promise<boolean> }): void;
}

/** Destroys the component's DataSource once the application has stopped serving. */
@Injectable()
export class DataSourceCloser implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/**
 * A component's own database as Nest providers: the TypeORM `DataSource` (opened at boot, migrated
 * when DB_AUTO_MIGRATE, its health part of readiness) and its closing at shutdown. `health` is the
 * token of the component's health registry.
 */
export function dataSourceProviders(optionsFor: (config: StackConfig) => ComponentDataSourceOptions, health: InjectionToken): Provider[] {
  return [
    {
      provide: DataSource,
      inject: [STACK_CONFIG, health],
      useFactory: async (config: StackConfig, registry: HealthRegistry) => {
        const ds = await openDataSource(optionsFor(config), config.autoMigrate);
        registry.register(new DatabaseHealthIndicator(ds));
        return ds;
      },
    },
    DataSourceCloser,
  ];
}
