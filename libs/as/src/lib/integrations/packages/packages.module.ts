import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EndDevicesModule } from '../../end-devices/end-devices.module';
import { PACKAGE_ASSOCIATION_STORE, SqlPackageAssociationStore } from './package-association.store';
import { PackageRegistryController } from './package-registry.controller';
import { PackageRegistryService } from './package-registry.service';
import { PACKAGE_USAGE_CACHE, PACKAGE_USAGE_CACHE_PROVIDER } from './package-usage-cache';

/**
 * The application packages (TTS `pkg/applicationserver/io/packages`): the association registry
 * (its store on the AS database, its RPC handlers) and the per-replica cache of each
 * application's package usage that the packages' integrations read for every message.
 */
@Module({
  imports: [EndDevicesModule],
  controllers: [PackageRegistryController],
  providers: [
    { provide: PACKAGE_ASSOCIATION_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new SqlPackageAssociationStore(ds) },
    PACKAGE_USAGE_CACHE_PROVIDER,
    PackageRegistryService,
  ],
  exports: [PACKAGE_USAGE_CACHE],
})
export class PackagesModule {}
