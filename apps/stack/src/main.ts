import { Logger, type Type } from '@nestjs/common';
import type { ComponentName } from '@lorawan/api';
import { type RunningComponent, runMain, startComponent } from '@lorawan/component';
import { inProcessMqttUpstream, type RunningGateway, startGateway } from '@lorawan/gateway';
import { connectMessaging } from '@lorawan/transport';
import { AsModule, MqttServer } from '@lorawan/as';
import { EventsModule } from '@lorawan/events';
import { GsModule } from '@lorawan/gs';
import { IsModule } from '@lorawan/is';
import { JsModule } from '@lorawan/js';
import { NsModule } from '@lorawan/ns';
import { embeddedAdminKey } from './admin-key';

const MODULES: Record<ComponentName, Type<unknown>> = { is: IsModule, js: JsModule, ns: NsModule, as: AsModule, events: EventsModule, gs: GsModule };
const ALL = ['is', 'js', 'ns', 'as', 'events', 'gs', 'gateway'] as const;
type Part = (typeof ALL)[number];

/**
 * All-in-one entry point, like TTS's single binary: `stack start [is js ns as events gs gateway]`
 * runs the named components (default: all) in one process. Without NATS_URL they talk over the
 * in-process transport and keep SQLite files under DATA_DIR: the embedded default of `npm start`.
 */
runMain('stack', process.env, async ({ config, logger }) => {
  const [command = 'start', ...names] = process.argv.slice(2);
  if (command !== 'start') throw new Error(`unknown command "${command}"; usage: stack start [${ALL.join(' ')}]`);
  const unknown = names.filter((n) => !(ALL as readonly string[]).includes(n));
  if (unknown.length > 0) throw new Error(`unknown component(s) ${unknown.join(', ')}; choose from ${ALL.join(', ')}`);
  const parts: Part[] = names.length > 0 ? (names as Part[]) : [...ALL];

  const log = new Logger('stack');
  if (!config.adminApiKey && parts.includes('is')) {
    const { key, file } = embeddedAdminKey(config.dataDir);
    config.adminApiKey = key;
    log.log({ file }, `ADMIN_API_KEY not set: using the admin key stored in ${file}`);
  }
  const messaging = await connectMessaging(config, 'stack');
  const components: RunningComponent[] = [];
  let gateway: RunningGateway | undefined;
  const close = async () => {
    await gateway?.close();
    for (const c of components.reverse()) await c.close();
    await messaging.close();
  };
  try {
    // One process, one operations port: with the gateway, its HTTP port serves health, readiness
    // (covering the components) and metrics; without it, HEALTH_PORT serves the first component's.
    let healthPort = parts.includes('gateway') ? undefined : config.healthPort;
    let mqttServer: MqttServer | undefined;
    for (const part of parts) {
      if (part === 'gateway') continue;
      const component = await startComponent(MODULES[part], { component: part, config: { ...config, healthPort }, messaging, logger });
      components.push(component);
      if (part === 'as') mqttServer = component.app.get(MqttServer);
      healthPort = undefined;
    }
    // MQTT over WebSocket: the AS of this process serves the gateway's clients directly.
    if (parts.includes('gateway'))
      gateway = await startGateway({ config, messaging, logger, mqttUpstream: mqttServer ? inProcessMqttUpstream(mqttServer) : undefined });
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
  log.log(
    { components: parts, transport: messaging.kind },
    `started ${parts.join(', ')} (${config.natsUrl ? 'NATS' : 'embedded'})${gateway ? `; HTTP API on :${gateway.port}/api/v3` : ''}`,
  );
  return {
    beginShutdown: () => {
      gateway?.beginShutdown();
      components.forEach((c) => c.beginShutdown());
    },
    close,
  };
});
