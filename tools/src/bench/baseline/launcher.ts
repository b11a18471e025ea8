import { freePort, TEST_NATS_URL } from '@lorawan/testing';
import { logsOf, type Proc, spawnNode, stopProcs, waitHttpReady } from '../procs';

export interface Baseline {
  baseUrl: string;
  procs: Proc[];
  logs(): string;
  stop(): Promise<void>;
}

/** The baseline chain as two processes: Fastify server and mysql2 responder, over NATS. */
export async function startBaseline(databaseUrl: string, subject: string, adminKey: string): Promise<Baseline> {
  const port = await freePort();
  const env = { NATS_URL: TEST_NATS_URL, BENCH_SUBJECT: subject };
  const procs = [
    spawnNode('baseline-responder', 'tools/src/bench/baseline/responder.js', { ...env, BENCH_DATABASE_URL: databaseUrl }),
    spawnNode('baseline-server', 'tools/src/bench/baseline/server.js', { ...env, HTTP_PORT: String(port), ADMIN_API_KEY: adminKey }),
  ];
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitHttpReady(`${baseUrl}/readyz`, procs);
  } catch (err) {
    await stopProcs(procs);
    throw err;
  }
  return { baseUrl, procs, logs: () => logsOf(procs), stop: () => stopProcs(procs) };
}
