import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampTransformer } from '@lorawan/persistence';
import type { IsClient } from './client.model';

/** An OAuth client row: ordered-by fields and the secret's hash are columns, the rest one JSON document (see the migration for indexes). */
@Entity({ name: 'clients' })
export class ClientEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) client_id!: string;
  @Column({ type: 'varchar', length: 50, default: '' }) name!: string;
  /** `PBKDF2$…` (see @lorawan/crypto `hashSecret`); null: no secret. Never leaves the store but through `secretHash`. */
  @Column({ type: 'varchar', length: 200, nullable: true }) secret_hash!: string | null;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) created_at!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) updated_at!: string;
  @Column({ type: 'varchar', length: 32, nullable: true, transformer: timestampTransformer }) deleted_at?: string | null;
  /** JSON of the CLIENT_DOCUMENT_FIELDS. */
  @Column({ type: 'text' }) fields!: string;
}

export const CLIENT_DOCUMENT_FIELDS = [
  'description',
  'attributes',
  'administrative_contact',
  'technical_contact',
  'redirect_uris',
  'logout_redirect_uris',
  'state',
  'state_description',
  'skip_authorization',
  'endorsed',
  'grants',
  'rights',
] as const satisfies ReadonlyArray<keyof IsClient>;
