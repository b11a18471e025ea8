import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampTransformer } from '@lorawan/persistence';

/**
 * A registry's row of an end device (table `end_devices` in the component's own database). The
 * identifiers looked up by the API and the data plane are real, indexed columns; the registry's
 * other fields are one JSON document.
 */
@Entity({ name: 'end_devices' })
export class RegistryDeviceEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) application_id!: string;
  @PrimaryColumn({ type: 'varchar', length: 36 }) device_id!: string;
  @Column({ type: 'varchar', length: 16, nullable: true }) dev_eui!: string | null;
  @Column({ type: 'varchar', length: 16, nullable: true }) join_eui!: string | null;
  @Column({ type: 'varchar', length: 8, nullable: true }) dev_addr!: string | null;
  /** The pending session's DevAddr (derived from `fields` on every write). */
  @Column({ type: 'varchar', length: 8, nullable: true }) pending_dev_addr!: string | null;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) created_at!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) updated_at!: string;
  @Column({ type: 'int' }) revision!: number;
  /** JSON of DeviceRecord.fields. */
  @Column({ type: 'text' }) fields!: string;
}
