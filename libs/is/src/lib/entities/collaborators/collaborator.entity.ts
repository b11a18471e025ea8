import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampTransformer } from '@lorawan/persistence';

/**
 * An account's membership of an entity, with the rights it grants (see the migrations for indexes):
 * a user or organization collaborating on an application, gateway or client, or a user member of
 * an organization. Account IDs are unique across users and organizations (`accounts`).
 */
@Entity({ name: 'collaborators' })
export class CollaboratorEntity {
  @PrimaryColumn({ type: 'varchar', length: 16 }) entity_kind!: string;
  @PrimaryColumn({ type: 'varchar', length: 36 }) entity_id!: string;
  @PrimaryColumn({ type: 'varchar', length: 36 }) account_id!: string;
  /** `user` or `organization`. */
  @Column({ type: 'varchar', length: 16, default: 'user' }) account_kind!: string;
  /** JSON list of right names, as granted (not implied). */
  @Column({ type: 'text' }) rights!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) created_at!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) updated_at!: string;
}
