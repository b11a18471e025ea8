import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampTransformer } from '@lorawan/persistence';

/** The row of an API key (see the migration for types and indexes). */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 39 }) id!: string;
  @Column({ type: 'varchar', length: 200 }) secret_hash!: string;
  @Column({ type: 'varchar', length: 50, default: '' }) name!: string;
  /** JSON list of right names. */
  @Column({ type: 'text' }) rights!: string;
  @Column({ type: 'varchar', length: 16 }) entity_kind!: string;
  @Column({ type: 'varchar', length: 36 }) entity_id!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) created_at!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) updated_at!: string;
  @Column({ type: 'varchar', length: 32, nullable: true, transformer: timestampTransformer }) expires_at?: string | null;
}
