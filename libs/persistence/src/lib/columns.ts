import type { ValueTransformer } from 'typeorm';
import { sqlToTimestamp, timestampToSql } from '@lorawan/api';

/** Canonical timestamp strings ⇄ DATETIME(6) text (MySQL) or the same text (SQLite): both sort as time. */
export const timestampTransformer: ValueTransformer = {
  to: (value: string | undefined | null) => (value ? timestampToSql(value) : value),
  from: (value: string | Date | null) => (value === null || value === undefined ? undefined : sqlToTimestamp(value)),
};

/** Duplicate-key errors of both drivers. */
export function isDuplicateKeyError(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string } };
  const code = e?.driverError?.code ?? e?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
