import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampTransformer } from '@lorawan/persistence';
import type { IsGateway } from './gateway.model';

/** A gateway row: the EUI (unique) and ordered-by fields are columns, the rest one JSON document (see the migration). */
@Entity({ name: 'gateways' })
export class GatewayEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) gateway_id!: string;
  /** Upper-case hex; unique among the gateways not purged (soft-deleted ones keep theirs). */
  @Column({ type: 'varchar', length: 16, nullable: true }) eui!: string | null;
  @Column({ type: 'varchar', length: 50, default: '' }) name!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) created_at!: string;
  @Column({ type: 'varchar', length: 32, transformer: timestampTransformer }) updated_at!: string;
  @Column({ type: 'varchar', length: 32, nullable: true, transformer: timestampTransformer }) deleted_at?: string | null;
  /** JSON of the GATEWAY_DOCUMENT_FIELDS; its `Secret` fields sealed (see TypeOrmGatewayStore). */
  @Column({ type: 'text' }) fields!: string;
}

/** Gateway fields kept in the JSON document (`frequency_plan_id` is not: it is `frequency_plan_ids[0]`). */
export const GATEWAY_DOCUMENT_FIELDS = [
  'description',
  'attributes',
  'administrative_contact',
  'technical_contact',
  'version_ids',
  'gateway_server_address',
  'auto_update',
  'update_channel',
  'frequency_plan_ids',
  'status_public',
  'location_public',
  'schedule_downlink_late',
  'enforce_duty_cycle',
  'schedule_anytime_delay',
  'update_location_from_status',
  'require_authenticated_connection',
  'disable_packet_broker_forwarding',
  'antennas',
  'lbs_lns_secret',
  'target_cups_uri',
  'target_cups_key',
] as const satisfies ReadonlyArray<keyof IsGateway>;
