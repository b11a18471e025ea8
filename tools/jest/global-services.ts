/**
 * Jest's global setup and teardown of the integration and e2e tiers: the MariaDB and NATS the
 * tests use. `TEST_MYSQL_URL` / `TEST_NATS_URL` point at existing servers; each one not set is
 * started here as a throwaway server of the run (a free loopback port, a data directory of its own
 * under the OS temp dir, stopped and removed at the end; `libs/testing` private services), and its
 * URL is put in the environment the test processes inherit. A program that is not installed is
 * named, with its Debian package, instead of a wall of connection failures.
 */
// eslint-disable-next-line @nx/enforce-module-boundaries -- Jest loads its global setup without the workspace's path aliases (ports.ts and private-services.ts import none either).
import { missingPrograms, type PrivateService, startPrivateMariaDb, startPrivateNats } from '../../libs/testing/src/lib/private-services';

/** InnoDB buffer pool of the run's MariaDB: the suites' databases are small, but many. */
const BUFFER_POOL_MB = 256;

const SERVICES = Symbol.for('@lorawan/testing:run-services');
type Holder = typeof globalThis & { [SERVICES]?: PrivateService[] };

/** Why a server cannot be started (its programs `missing`), and what to do; undefined when nothing is missing. */
export function missingError(kind: 'mariadb' | 'nats', variable: string, missing = missingPrograms(kind)): Error | undefined {
  if (missing.length === 0) return undefined;
  const packages = [...new Set(missing.map((p) => p.package))].join(' ');
  return new Error(
    `the tests need ${kind === 'mariadb' ? 'MariaDB' : 'NATS with JetStream'} and ${variable} is not set, so they start their own, ` +
      `but ${missing.map((p) => p.path).join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed. ` +
      `Install it (\`apt-get install ${packages}\`), give its path (${missing.map((p) => p.env).join(', ')}), ` +
      `or set ${variable} to a server that is running.`,
  );
}

export default async function setup(): Promise<void> {
  const wanted = [
    { kind: 'mariadb' as const, variable: 'TEST_MYSQL_URL', start: () => startPrivateMariaDb({ bufferPoolMb: BUFFER_POOL_MB }) },
    { kind: 'nats' as const, variable: 'TEST_NATS_URL', start: () => startPrivateNats() },
  ].filter((w) => !process.env[w.variable]);
  const missing = wanted.map((w) => missingError(w.kind, w.variable)).filter((e): e is Error => e !== undefined);
  if (missing.length > 0) throw new Error(missing.map((e) => e.message).join('\n'));
  const started: PrivateService[] = ((globalThis as Holder)[SERVICES] = []);
  for (const w of wanted) {
    const service = await w.start();
    started.push(service);
    process.env[w.variable] = service.url;
    process.stderr.write(`\n[tests] ${w.variable}=${service.url} (a server of this run; set ${w.variable} to use another)\n`);
  }
}

export async function teardown(): Promise<void> {
  const holder = globalThis as Holder;
  for (const service of holder[SERVICES] ?? []) await service.stop();
  holder[SERVICES] = [];
}
