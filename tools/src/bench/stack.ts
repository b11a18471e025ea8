import { randomBytes } from 'node:crypto';
import { deleteEventStream, deleteJetStreamStream, freePort, freeUdpPort, TEST_MYSQL_URL, TEST_NATS_URL, uniqueSuffix, waitReady } from '@lorawan/testing';
import { dropMysqlDatabase, ensureMysqlDatabase } from '@lorawan/persistence';
import { logsOf, type Proc, spawnNode, stopProcs } from './procs';

export type BenchComponent = 'is' | 'js' | 'ns' | 'as' | 'events' | 'gs';

export interface BenchStack {
  suffix: string;
  baseUrl: string;
  adminKey: string;
  /** mysql:// URL of the IS database (created here, dropped by stop()). */
  isDatabaseUrl: string;
  /** Component processes (named `is`, `js`, `ns`, `as`, `gs`; extra replicas `<component>#<n>`) and the `gateway`. */
  procs: Proc[];
  /** HEALTH_PORT (health, readiness, `/metrics`) of each component process, by process name. */
  healthPorts: Map<string, number>;
  /** The Semtech UDP port (GS_UDP_PORT on 127.0.0.1) of each Gateway Server process, by process name (`gs`, `gs#1`, …). */
  udpPorts: Map<string, number>;
  /** The LoRa Basics Station `ws://` port (GS_LBS_PORT on 127.0.0.1) of each Gateway Server process, by process name. */
  lbsPorts: Map<string, number>;
  /** The MQTT server port (MQTT_PORT on 127.0.0.1) of each Application Server process, by process name (`as`, `as#1`, …). */
  mqttPorts: Map<string, number>;
  /** mysql:// URL of each component's database (created here, dropped by stop()), by component. */
  databaseUrls: Partial<Record<BenchComponent, string>>;
  /** Pid of the named process (0 when not running). */
  pid(name: string): number;
  logs(): string;
  stop(): Promise<void>;
}

/**
 * The bench measures throughput from one address with one key (thousands of requests a second,
 * a thousand streams, each stream its own connection): the gateway's abuse limits, which would
 * refuse that, are off (the connection cap closed the `events` phase's 257th stream: "socket hang up").
 */
export const BENCH_WITHOUT_ABUSE_LIMITS = {
  RATE_LIMIT_API_KEY_PER_MIN: '0',
  RATE_LIMIT_ADDRESS_PER_MIN: '0',
  EVENTS_MAX_STREAMS_PER_KEY: '0',
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
};

/**
 * The distributed stack as `startDistributedStack()` runs it (components + gateway as separate
 * node processes from dist/, real NATS and MariaDB, one database per component, own subject
 * prefix, each component with its HEALTH_PORT and waited for on its `/readyz`), but exposing the
 * IS database URL so the bench can seed it directly.
 */
export async function startBenchStack(
  components: readonly BenchComponent[] = ['is'],
  replicas: Partial<Record<BenchComponent, number>> = {},
): Promise<BenchStack> {
  const suffix = uniqueSuffix();
  const adminKey = `NNSXS.BENCH${randomBytes(16).toString('hex').toUpperCase()}.${randomBytes(24).toString('hex').toUpperCase()}`;
  const all: BenchComponent[] = ['is', ...components.filter((c) => c !== 'is')];
  const databases: Record<string, string> = {};
  for (const c of all) {
    if (c === 'events' || c === 'gs') continue; // no database: history lives in JetStream, the GS keeps no state
    databases[`${c.toUpperCase()}_DATABASE_URL`] = `${TEST_MYSQL_URL}/lw_${suffix}_${c}`;
    await ensureMysqlDatabase(databases[`${c.toUpperCase()}_DATABASE_URL`]);
  }
  const isDatabaseUrl = databases.IS_DATABASE_URL;
  const port = await freePort();
  // Webhooks of the bench go to a receiver on a loopback port (the SSRF guard would refuse it).
  const env = {
    NATS_URL: TEST_NATS_URL,
    NATS_SUBJECT_PREFIX: `t${suffix}`,
    ADMIN_API_KEY: adminKey,
    PUBLIC_URL: `http://127.0.0.1:${port}/api/v3`,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // The simulated devices answer no MAC command: with the default status periodicities, the NS
    // would ask each of them for DevStatusAns in a downlink after every uplink (as TTS does for a
    // device that never answers), which is not the traffic the uplink targets describe.
    NS_DEFAULT_MAC_SETTINGS: JSON.stringify({ status_count_periodicity: 0, status_time_periodicity: '0s' }),
    ...BENCH_WITHOUT_ABUSE_LIMITS,
    // `formatter_isolation` without the AS's runaway budget (0), to measure the worker pool alone.
    ...(process.env.BENCH_FORMATTER_RUNAWAYS_PER_MIN ? { FORMATTER_APP_RUNAWAYS_PER_MIN: process.env.BENCH_FORMATTER_RUNAWAYS_PER_MIN } : {}),
    // Traffic events' data only while a stream watches (the default), or always.
    ...(process.env.BENCH_EVENTS_DATA ? { EVENTS_DATA: process.env.BENCH_EVENTS_DATA } : {}),
    ...databases,
  };
  const procs: Proc[] = [];
  const readyUrls: string[] = [];
  const healthPorts = new Map<string, number>();
  const udpPorts = new Map<string, number>();
  const lbsPorts = new Map<string, number>();
  const mqttPorts = new Map<string, number>();
  for (const c of all) {
    // Extra replicas (same queue groups and JetStream consumers) are named `<component>#<n>`.
    for (let i = 0; i < (replicas[c] ?? 1); i++) {
      const name = i === 0 ? c : `${c}#${i}`;
      const healthPort = await freePort();
      healthPorts.set(name, healthPort);
      readyUrls.push(`http://127.0.0.1:${healthPort}/readyz`);
      // Each Gateway Server replica serves its own Semtech UDP port on loopback.
      const ports: Record<string, string> = {};
      if (c === 'gs') {
        udpPorts.set(name, await freeUdpPort());
        // Its Basics Station port too: replicas (and other stacks on the machine) must not share 1887.
        lbsPorts.set(name, await freePort());
        Object.assign(ports, {
          GS_UDP_PORT: String(udpPorts.get(name)),
          GS_UDP_HOST: '127.0.0.1',
          GS_LBS_PORT: String(lbsPorts.get(name)),
          GS_LBS_HOST: '127.0.0.1',
        });
      }
      // Each AS replica its own MQTT server port (a system mosquitto holds 1883).
      if (c === 'as') {
        mqttPorts.set(name, await freePort());
        Object.assign(ports, { MQTT_PORT: String(mqttPorts.get(name)), MQTT_HOST: '127.0.0.1' });
      }
      procs.push(spawnNode(name, `apps/${c}/src/main.js`, { ...env, ...ports, HEALTH_PORT: String(healthPort) }));
    }
  }
  procs.push(spawnNode('gateway', 'apps/gateway/src/main.js', { ...env, HTTP_PORT: String(port) }));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopProcs(procs);
    for (const url of Object.values(databases)) await dropMysqlDatabase(url);
    if (all.includes('events')) await deleteEventStream(env.NATS_SUBJECT_PREFIX);
    if (all.includes('as')) await deleteJetStreamStream(`WEBHOOKS_${env.NATS_SUBJECT_PREFIX}`);
    // The NS replicas' uplink deduplication bucket (JetStream KV).
    if (all.includes('ns')) await deleteJetStreamStream(`KV_NS_UPLINKS_${env.NATS_SUBJECT_PREFIX}`);
  };
  try {
    await waitReady([`${baseUrl}/readyz`, ...readyUrls], procs, 60000);
  } catch (err) {
    await stop();
    throw err;
  }
  const pid = (name: string) => procs.find((p) => p.name === name)?.child.pid ?? 0;
  const databaseUrls = Object.fromEntries(
    all.flatMap((c) => (databases[`${c.toUpperCase()}_DATABASE_URL`] ? [[c, databases[`${c.toUpperCase()}_DATABASE_URL`]]] : [])),
  );
  return { suffix, baseUrl, adminKey, isDatabaseUrl, procs, healthPorts, udpPorts, lbsPorts, mqttPorts, databaseUrls, pid, logs: () => logsOf(procs), stop };
}
