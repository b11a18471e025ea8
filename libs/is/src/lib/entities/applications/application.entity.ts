import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampTransformer } from '@lorawan/persistence';
import type { IsApplication } from './application.model';

/** An application row: ordered-by fields are columns, the rest one JSON document (see the migration for indexes). */
@Entity({ name: 'applications' })
export class ApplicationEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) application_id!: string;
  @Column({ type: 'varchar', length: 50, default: '' }) name!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) created_at!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) updated_at!: string;
  @Column({ type: 'varchar', length: 32, nullable: true, transformer: timestampTransformer }) deleted_at?: string | null;
  /** JSON of the APPLICATION_DOCUMENT_FIELDS. */
  @Column({ type: 'text' }) fields!: string;
}

export const APPLICATION_DOCUMENT_FIELDS = [
  'description',
  'attributes',
  'administrative_contact',
  'technical_contact',
  'network_server_address',
  'application_server_address',
  'join_server_address',
] as const satisfies ReadonlyArray<keyof IsApplication>;
