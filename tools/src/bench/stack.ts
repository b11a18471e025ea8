import { randomBytes } from 'node:crypto';
import { freePort, TEST_MYSQL_URL, TEST_NATS_URL, uniqueSuffix } from '@lorawan/testing';
import { dropMysqlDatabase, ensureMysqlDatabase } from '@lorawan/persistence';
import { logsOf, type Proc, spawnNode, stopProcs, waitHttpReady } from './procs';

export interface BenchStack {
  suffix: string;
  baseUrl: string;
  adminKey: string;
  /** mysql:// URL of the IS database (created here, dropped by stop()). */
  isDatabaseUrl: string;
  procs: Proc[];
  logs(): string;
  stop(): Promise<void>;
}

/**
 * The distributed stack as `startDistributedStack()` runs it (IS + gateway as separate node
 * processes from dist/, real NATS and MariaDB, own database and subject prefix), but exposing the
 * IS database URL so the bench can seed it directly.
 */
export async function startBenchStack(): Promise<BenchStack> {
  const suffix = uniqueSuffix();
  const adminKey = `NNSXS.BENCH${randomBytes(16).toString('hex').toUpperCase()}.${randomBytes(24).toString('hex').toUpperCase()}`;
  const isDatabaseUrl = `${TEST_MYSQL_URL}/lw_${suffix}_is`;
  await ensureMysqlDatabase(isDatabaseUrl);
  const port = await freePort();
  const env = { NATS_URL: TEST_NATS_URL, NATS_SUBJECT_PREFIX: `t${suffix}`, ADMIN_API_KEY: adminKey, IS_DATABASE_URL: isDatabaseUrl };
  const procs = [spawnNode('is', 'apps/is/src/main.js', env), spawnNode('gateway', 'apps/gateway/src/main.js', { ...env, HTTP_PORT: String(port) })];
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopProcs(procs);
    await dropMysqlDatabase(isDatabaseUrl);
  };
  try {
    await waitHttpReady(`${baseUrl}/readyz`, procs);
  } catch (err) {
    await stop();
    throw err;
  }
  return { suffix, baseUrl, adminKey, isDatabaseUrl, procs, logs: () => logsOf(procs), stop };
}
