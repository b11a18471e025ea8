/**
 * Settings of the fuzz suite (docs/tests-and-benchmarks.md "Fuzzing"): a fixed seed and a bounded budget under `npm test`,
 * more on demand (`FUZZ_RUNS=200 FUZZ_BUDGET_MS=600000 npm run test:fuzz`, another `FUZZ_SEED`).
 * `FUZZ_MODES=embedded,distributed` adds a run against one process per component.
 */
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { type ComponentName } from '@lorawan/api';

const num = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(n) ? n : fallback;
};

export const FUZZ_SEED = num('FUZZ_SEED', 0x10ea);
/** Generated requests per HTTP binding (each a property run), and datagrams of the UDP suite. */
export const FUZZ_RUNS = num('FUZZ_RUNS', 12);
export const FUZZ_DATAGRAMS = num('FUZZ_DATAGRAMS', 4000);
/** Time for all HTTP properties together, and for the UDP properties (ms); runs stop early when it is spent. */
export const FUZZ_BUDGET_MS = num('FUZZ_BUDGET_MS', 75_000);
export const FUZZ_UDP_BUDGET_MS = num('FUZZ_UDP_BUDGET_MS', Math.max(10_000, FUZZ_BUDGET_MS / 4));

/** The Gateway Server's lookups of unknown EUIs per second: the UDP suite's flood phase checks the IS gets no more. */
export const FUZZ_EUI_LOOKUPS_PER_SEC = 50;
/** The stack's limits well above what the fuzzer sends (rate limits are not what it tests), but the GS's lookup rate. */
const ENV = {
  RATE_LIMIT_API_KEY_PER_MIN: '10000000',
  RATE_LIMIT_ADDRESS_PER_MIN: '10000000',
  GS_UNKNOWN_EUI_LOOKUPS_PER_SEC: String(FUZZ_EUI_LOOKUPS_PER_SEC),
};
const ALL: ComponentName[] = ['is', 'js', 'ns', 'as', 'events', 'gs'];

export type Start = () => Promise<StackUnderTest>;
export const MODES: Array<[string, Start]> = (process.env.FUZZ_MODES ?? 'embedded')
  .split(',')
  .map((m) => m.trim())
  .filter((m) => m === 'embedded' || m === 'distributed')
  .map((m): [string, Start] => [m, m === 'embedded' ? () => startEmbeddedStack({ env: ENV }) : () => startDistributedStack({ components: ALL, env: ENV })]);

/** Every process of the stack is running and its HTTP readiness answers 200. */
export async function expectAlive(stack: StackUnderTest): Promise<void> {
  for (const [name, child] of stack.processes) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}):\n${stack.logsOf(name).slice(-4000)}`);
  }
  const ready = await fetch(`${stack.baseUrl}/readyz`);
  if (ready.status !== 200) throw new Error(`/readyz answered ${ready.status}: ${await ready.text()}`);
  for (const [name, port] of stack.healthPorts) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    if (res.status !== 200) throw new Error(`${name} /readyz answered ${res.status}`);
  }
}
