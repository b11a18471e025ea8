import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampTransformer } from '@lorawan/persistence';
import type { IsUser } from './user.model';

/** A user row: listed and ordered-by fields are columns, the rest one JSON document (see the migration for indexes). */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) user_id!: string;
  @Column({ type: 'varchar', length: 320, default: '' }) primary_email_address!: string;
  @Column({ type: 'varchar', length: 50, default: '' }) name!: string;
  @Column({ type: 'boolean', default: false }) admin!: boolean;
  /** `State` number (`STATE_REQUESTED` = 0 …), so ordering by state is TTS's. */
  @Column({ type: 'int', default: 0 }) state!: number;
  /** `PBKDF2$…` (see @lorawan/crypto `hashSecret`); null: no password (the bootstrap admin uses its API key). */
  @Column({ type: 'varchar', length: 200, nullable: true }) password_hash!: string | null;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) created_at!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) updated_at!: string;
  @Column({ type: 'varchar', length: 32, nullable: true, transformer: timestampTransformer }) deleted_at?: string | null;
  /** JSON of UserDocument. */
  @Column({ type: 'text' }) fields!: string;
}

/** User fields kept in the JSON document. */
export const USER_DOCUMENT_FIELDS = [
  'description',
  'attributes',
  'primary_email_address_validated_at',
  'password_updated_at',
  'require_password_update',
  'state_description',
] as const satisfies ReadonlyArray<keyof IsUser>;
