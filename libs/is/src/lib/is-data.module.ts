import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HealthService } from '@lorawan/component';
import { dataSourceProviders } from '@lorawan/persistence';
import { isDataSourceOptions } from './is-data-source';

/** The Identity Server's database (one DataSource, migrated at boot when configured so). */
@Module({
  providers: dataSourceProviders(isDataSourceOptions, HealthService),
  exports: [DataSource],
})
export class IsDataModule {}
