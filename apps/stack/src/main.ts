import { Logger, type Type } from '@nestjs/common';
import type { ComponentName } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { type RunningComponent, runMain, startComponent } from '@lorawan/component';
import { startGateway } from '@lorawan/gateway';
import { createTransport } from '@lorawan/transport';
import { AsModule } from '@lorawan/as';
import { EventsModule } from '@lorawan/events';
import { IsModule } from '@lorawan/is';
import { JsModule } from '@lorawan/js';
import { NsModule } from '@lorawan/ns';
import { embeddedAdminKey } from './admin-key';

const MODULES: Record<ComponentName, Type<unknown>> = { is: IsModule, js: JsModule, ns: NsModule, as: AsModule, events: EventsModule };
const ALL = ['is', 'js', 'ns', 'as', 'events', 'gateway'] as const;
type Part = (typeof ALL)[number];

/**
 * All-in-one entry point, like TTS's single binary: `stack start [is js ns as events gateway]`
 * runs the named components (default: all) in one process. Without NATS_URL they talk over the
 * in-process transport and keep SQLite files under DATA_DIR: the embedded default of `npm start`.
 */
runMain('stack', async () => {
  const [command = 'start', ...names] = process.argv.slice(2);
  if (command !== 'start') throw new Error(`unknown command "${command}"; usage: stack start [${ALL.join(' ')}]`);
  const unknown = names.filter((n) => !(ALL as readonly string[]).includes(n));
  if (unknown.length > 0) throw new Error(`unknown component(s) ${unknown.join(', ')}; choose from ${ALL.join(', ')}`);
  const parts: Part[] = names.length > 0 ? (names as Part[]) : [...ALL];

  const logger = new Logger('stack');
  const config = loadConfig(process.env);
  if (!config.adminApiKey && parts.includes('is')) {
    const { key, file } = embeddedAdminKey(config.dataDir);
    config.adminApiKey = key;
    logger.log(`ADMIN_API_KEY not set: using the admin key stored in ${file}`);
  }
  const transport = await createTransport(config, 'stack');
  const components: RunningComponent[] = [];
  // One process, one health endpoint: with the gateway its /readyz covers the components; HEALTH_PORT
  // serves the first component only (several components cannot share one port).
  let healthPort = parts.includes('gateway') ? undefined : config.healthPort;
  for (const part of parts) {
    if (part === 'gateway') continue;
    components.push(await startComponent(MODULES[part], { component: part, config: { ...config, healthPort }, transport }));
    healthPort = undefined;
  }
  const gateway = parts.includes('gateway') ? await startGateway({ config, transport }) : undefined;
  logger.log(`started ${parts.join(', ')} (${config.natsUrl ? 'NATS' : 'embedded'})${gateway ? `; HTTP API on :${gateway.port}/api/v3` : ''}`);
  return async () => {
    await gateway?.close();
    for (const c of components.reverse()) await c.close();
    await transport.close();
  };
});
