import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampTransformer } from '@lorawan/persistence';
import type { IsOrganization } from './organization.model';

/** An organization row: ordered-by fields are columns, the rest one JSON document (see the migration for indexes). */
@Entity({ name: 'organizations' })
export class OrganizationEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) organization_id!: string;
  @Column({ type: 'varchar', length: 50, default: '' }) name!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) created_at!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) updated_at!: string;
  @Column({ type: 'varchar', length: 32, nullable: true, transformer: timestampTransformer }) deleted_at?: string | null;
  /** JSON of the ORGANIZATION_DOCUMENT_FIELDS. */
  @Column({ type: 'text' }) fields!: string;
}

export const ORGANIZATION_DOCUMENT_FIELDS = [
  'description',
  'attributes',
  'administrative_contact',
  'technical_contact',
  'fanout_notifications',
] as const satisfies ReadonlyArray<keyof IsOrganization>;
