import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EndDevicesModule } from '../../end-devices/end-devices.module';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { PackagesModule } from '../packages/packages.module';
import { StorageController } from './storage.controller';
import { StorageQueryService } from './storage-query.service';
import { StorageRetentionService } from './storage-retention.service';
import { STORED_UP_WRITER, StorageIntegration } from './storage.integration';
import { SqlStoredUpStore, STORED_UP_STORE, type StoredUpStore } from './stored-up.store';
import { DEFAULT_WRITER_OPTIONS, StoredUpWriter } from './stored-up-writer';

/**
 * The Storage Integration (TTS `pkg/applicationserver/io/packages/storage`): the stored messages
 * on the AS database, the integration that stores those of devices and applications with a
 * `storage-integration` association (batched writes), the queries (ApplicationUpStorage) and the
 * retention.
 */
@Module({
  imports: [EndDevicesModule, PackagesModule],
  controllers: [StorageController],
  providers: [
    { provide: STORED_UP_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new SqlStoredUpStore(ds) },
    {
      provide: STORED_UP_WRITER,
      inject: [STORED_UP_STORE, STACK_CONFIG],
      useFactory: (store: StoredUpStore, config: StackConfig) =>
        new StoredUpWriter(store, { ...DEFAULT_WRITER_OPTIONS, bufferMax: config.as.storage.bufferMax }),
    },
    StorageIntegration,
    StorageQueryService,
    StorageRetentionService,
  ],
  exports: [StorageIntegration],
})
export class StorageModule {}
