import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampTransformer } from '@lorawan/persistence';
import type { IsEndDevice } from './end-device.model';

/** Length of the indexed description prefix used for ordering (fits InnoDB's key limit in utf8mb4). */
export const DESCRIPTION_KEY_LENGTH = 191;

/**
 * The IS row of an end device. Columns that are looked up or ordered by are real columns with
 * indexes (see the migration); the other IS fields live in one JSON document.
 */
@Entity({ name: 'end_devices' })
export class EndDeviceEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) application_id!: string;
  @PrimaryColumn({ type: 'varchar', length: 36 }) device_id!: string;
  @Column({ type: 'varchar', length: 16, nullable: true }) dev_eui!: string | null;
  @Column({ type: 'varchar', length: 16, nullable: true }) join_eui!: string | null;
  @Column({ type: 'varchar', length: 50, default: '' }) name!: string;
  @Column({ type: 'varchar', length: 2000, default: '' }) description!: string;
  @Column({ type: 'varchar', length: DESCRIPTION_KEY_LENGTH, default: '' }) description_key!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) created_at!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) updated_at!: string;
  /** JSON of EndDeviceDocument. */
  @Column({ type: 'text' }) fields!: string;
}

/** IS fields kept in the JSON document. */
export type EndDeviceDocument = Pick<
  IsEndDevice,
  | 'attributes'
  | 'version_ids'
  | 'service_profile_id'
  | 'network_server_address'
  | 'application_server_address'
  | 'join_server_address'
  | 'locations'
  | 'picture'
>;
