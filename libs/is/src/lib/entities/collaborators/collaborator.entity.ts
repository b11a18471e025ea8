import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampTransformer } from '@lorawan/persistence';

/** A user's membership of an application or gateway, with the rights it grants (see the migration for indexes). */
@Entity({ name: 'collaborators' })
export class CollaboratorEntity {
  @PrimaryColumn({ type: 'varchar', length: 16 }) entity_kind!: string;
  @PrimaryColumn({ type: 'varchar', length: 36 }) entity_id!: string;
  @PrimaryColumn({ type: 'varchar', length: 36 }) user_id!: string;
  /** JSON list of right names, as granted (not implied). */
  @Column({ type: 'text' }) rights!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) created_at!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) updated_at!: string;
}
