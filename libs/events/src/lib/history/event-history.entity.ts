import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One event of the embedded history (table `event_history` in the events service's own SQLite
 * file): `seq` is the order received, `received_at` what the retention counts from, `event` the
 * event's JSON as published (which holds no secret).
 */
@Entity({ name: 'event_history' })
export class EventHistoryEntity {
  @PrimaryGeneratedColumn({ type: 'integer' }) seq!: number;
  /** Milliseconds since the epoch, when this replica received the event. */
  @Column({ type: 'bigint' }) received_at!: number;
  /** The event's own `time`, in microseconds since the epoch (for `after`). */
  @Column({ type: 'bigint' }) time_micros!: number;
  @Column({ type: 'text' }) event!: string;
}
