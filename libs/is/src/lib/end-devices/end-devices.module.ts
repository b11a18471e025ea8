import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IdentityStoresModule } from '../entities/identity-stores.module';
import { IsDataModule } from '../is-data.module';
import { EndDeviceRegistryController } from './end-device-registry.controller';
import { EndDeviceRegistryService } from './end-device-registry.service';
import { END_DEVICE_STORE } from './end-device.model';
import { TypeOrmEndDeviceStore } from './typeorm-end-device.store';

/** The IS's end-device registry (its metadata fields), checked against the entities through the `IdentityDirectory`. */
@Module({
  imports: [IsDataModule, IdentityStoresModule],
  controllers: [EndDeviceRegistryController],
  providers: [{ provide: END_DEVICE_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new TypeOrmEndDeviceStore(ds) }, EndDeviceRegistryService],
  exports: [EndDeviceRegistryService],
})
export class EndDevicesModule {}
