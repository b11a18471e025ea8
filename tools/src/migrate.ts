import { loadConfig } from '@lorawan/config';
import { asDataSourceOptions } from '@lorawan/as';
import { eventsDataSourceOptions } from '@lorawan/events';
import { isDataSourceOptions } from '@lorawan/is';
import { jsDataSourceOptions } from '@lorawan/js';
import { nsDataSourceOptions } from '@lorawan/ns';
import { ensureMysqlDatabase, openDataSource, runMigrations, type ComponentDataSourceOptions } from '@lorawan/persistence';
import type { StackConfig } from '@lorawan/config';

/** `migrate <component>`: applies a component's migrations to its database (Nx target `db-migrate`). */
const SOURCES: Record<string, (c: StackConfig) => ComponentDataSourceOptions> = {
  is: isDataSourceOptions,
  js: jsDataSourceOptions,
  ns: nsDataSourceOptions,
  as: asDataSourceOptions,
  /** Embedded mode only (its SQLite event history); distributed mode keeps events in JetStream. */
  events: eventsDataSourceOptions,
};

async function main(): Promise<void> {
  const component = process.argv[2] ?? '';
  if (!(component in SOURCES)) throw new Error(`usage: migrate <${Object.keys(SOURCES).join('|')}>`);
  const options = SOURCES[component];
  const config = loadConfig(process.env);
  const dsOptions = options(config);
  if (dsOptions.url) await ensureMysqlDatabase(dsOptions.url, dsOptions.tls);
  const ds = await openDataSource(dsOptions, false);
  const applied = await runMigrations(ds);
  console.log(`${component}: ${applied.length} migration(s) applied${applied.length ? `: ${applied.join(', ')}` : ''}`);
  await ds.destroy();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
