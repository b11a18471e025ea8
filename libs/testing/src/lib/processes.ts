import { createSocket } from 'node:dgram';
import { connect } from 'nats';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { type DatabaseTls, dropMysqlDatabase, ensureMysqlDatabase } from '@lorawan/persistence';
import type { ComponentName } from '@lorawan/api';
import { COMPONENT_NODE_FLAGS } from '@lorawan/config';
import { freePort } from './ports';

export { freePort };

/** Where the machine's services are (docs/tests-and-benchmarks.md): overridable for other machines. */
export const TEST_MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
/** The repository root: the nearest folder with a package.json (works from sources and from dist/). */
function repositoryRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
const ROOT = repositoryRoot(__dirname);
const DIST = process.env.LW_DIST_DIR ?? join(ROOT, 'dist');

/** A UDP port free on loopback now (the Gateway Server's GS_UDP_PORT of a test stack). */
export async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((res, rej) => {
    socket.once('error', rej);
    socket.bind(0, '127.0.0.1', res);
  });
  const { port } = socket.address();
  await new Promise<void>((res) => socket.close(() => res()));
  return port;
}

/** A unique, SQL- and NATS-safe suffix for one suite's databases and subjects. */
export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

export interface StackUnderTest {
  mode: 'distributed' | 'embedded';
  baseUrl: string;
  adminKey: string;
  processes: Map<string, ChildProcess>;
  /** HEALTH_PORT of each component process (distributed mode). */
  healthPorts: Map<string, number>;
  /** The Gateway Server's Semtech UDP port on 127.0.0.1 (embedded, or distributed with `gs`); of the first replica. */
  udpPort?: number;
  /** Distributed mode: the UDP port of each Gateway Server replica (`gs#0`, `gs#1`, …). */
  udpPorts?: Map<string, number>;
  /** The Gateway Server's LoRa Basics Station `ws://` port on 127.0.0.1 (GS_LBS_PORT; embedded, or distributed with `gs`); of the first replica. */
  lbsPort?: number;
  /** Distributed mode: the Basics Station port of each Gateway Server replica. */
  lbsPorts?: Map<string, number>;
  /** The MQTT server's TCP port on 127.0.0.1 (embedded, or distributed with `as`); of the first replica. */
  mqttPort?: number;
  /** Distributed mode: the MQTT port of each Application Server replica (`as#0`, `as#1`, …). */
  mqttPorts?: Map<string, number>;
  /** Distributed mode with several gateways: the base URL of each (`gateway#0` first); else just `baseUrl`. */
  baseUrls?: string[];
  /** Output of every process, for failure diagnostics and log assertions. */
  logs(): string;
  /** Output of one process (`gateway`, `is#0`, … distributed; `stack` embedded). */
  logsOf(name: string): string;
  /** SIGKILLs the named process (`as#0`, … distributed; `stack` embedded, on the same DATA_DIR), starts it again with the same environment and waits until it is ready. */
  restart?(name: string): Promise<void>;
  stop(): Promise<void>;
}

/** A node process of dist/ with its output kept for diagnostics. */
export interface Spawned {
  name: string;
  child: ChildProcess;
  output: string[];
}

/** Spawns `node COMPONENT_NODE_FLAGS [nodeFlags] dist/<script> [args]` with a minimal environment. */
export function spawnApp(name: string, script: string, args: string[], env: Record<string, string>, nodeFlags: string[] = []): Spawned {
  // Components run as they ship: with COMPONENT_NODE_FLAGS.
  const child = spawn(process.execPath, [...COMPONENT_NODE_FLAGS, ...nodeFlags, join(DIST, script), ...args], {
    // NODE_ENV passes on (jest's `test` turns on the registry's checks of shared records); the bench sets none.
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...(process.env.NODE_ENV ? { NODE_ENV: process.env.NODE_ENV } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  return { name, child, output };
}

/** Waits until every given `/readyz` answers 200 (each replica, not just one of a queue group); `https://` ones verified against `ca`. */
export async function waitReady(readyUrls: string[], spawned: Spawned[], timeoutMs = 60000, ca?: string): Promise<void> {
  const dispatcher = ca ? new Agent({ connect: { ca } }) : undefined;
  const probe = async (url: string) => (dispatcher && url.startsWith('https:') ? (await undiciFetch(url, { dispatcher })).status : (await fetch(url)).status);
  try {
    const deadline = Date.now() + timeoutMs;
    const pending = new Set(readyUrls);
    while (Date.now() < deadline) {
      const dead = spawned.find((s) => s.child.exitCode !== null);
      if (dead) throw new Error(`${dead.name} exited with ${dead.child.exitCode}:\n${dead.output.join('')}`);
      for (const url of [...pending]) {
        try {
          if ((await probe(url)) === 200) pending.delete(url);
        } catch {
          // not listening yet
        }
      }
      if (pending.size === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await dispatcher?.close();
  }
  throw new Error(`stack not ready after ${timeoutMs} ms:\n${spawned.map((s) => `--- ${s.name}\n${s.output.join('')}`).join('\n')}`);
}

/** SIGTERM, then SIGKILL after 10 s; resolves when every process has exited. */
export async function stopAll(spawned: Spawned[]): Promise<void> {
  await Promise.all(
    spawned.map(
      (s) =>
        new Promise<void>((res) => {
          if (s.child.exitCode !== null || s.child.signalCode !== null) return res();
          const kill = setTimeout(() => s.child.kill('SIGKILL'), 10000);
          s.child.once('exit', () => {
            clearTimeout(kill);
            res();
          });
          s.child.kill('SIGTERM');
        }),
    ),
  );
}

export interface DistributedOptions {
  /** Components to run as separate processes (default: is). The gateway always runs. */
  components?: ComponentName[];
  /** Replicas per component (default 1). */
  replicas?: number;
  env?: Record<string, string>;
  /** The MariaDB the components' databases are made on (default TEST_MYSQL_URL; a private one for fault injection). */
  mysqlUrl?: string;
  /** The NATS the processes use (default TEST_NATS_URL; a private one for fault injection). */
  natsUrl?: string;
  /** Gateway processes (default 1, named `gateway`; with more, `gateway#0`, `gateway#1`, … each on its own port: `baseUrls`). */
  gatewayReplicas?: number;
  /** TLS of the `mysqlUrl` server for making and dropping the suite's databases (the processes get theirs from `env`: DB_TLS_*). */
  mysqlTls?: DatabaseTls;
  /** The gateways serve HTTPS (`env` has HTTP_TLS_*): base URLs are `https://`, their readiness verified against this CA (PEM). */
  httpsCa?: string;
  /** Environment of one process only (`is#0`, `gateway`, …), over `env`: its own NATS credentials. */
  envOf?: (name: string) => Record<string, string>;
}

/** Gateway + components as separate processes over the machine's NATS and MariaDB (own databases, own subjects). */
export async function startDistributedStack(options: DistributedOptions = {}): Promise<StackUnderTest> {
  const suffix = uniqueSuffix();
  const adminKey = `NNSXS.TEST${randomBytes(16).toString('hex').toUpperCase()}.${randomBytes(24).toString('hex').toUpperCase()}`;
  const components = options.components ?? ['is'];
  const mysqlUrl = options.mysqlUrl ?? TEST_MYSQL_URL;
  const natsUrl = options.natsUrl ?? TEST_NATS_URL;
  const databases: Record<string, string> = {};
  for (const c of components) {
    if (c === 'events' || c === 'gs') continue;
    databases[`${c.toUpperCase()}_DATABASE_URL`] = `${mysqlUrl}/lw_${suffix}_${c}`;
    await ensureMysqlDatabase(databases[`${c.toUpperCase()}_DATABASE_URL`], options.mysqlTls);
  }
  const port = await freePort();
  const env = {
    NATS_URL: natsUrl,
    NATS_SUBJECT_PREFIX: `t${suffix}`,
    ADMIN_API_KEY: adminKey,
    PUBLIC_URL: `${options.httpsCa ? 'https' : 'http'}://127.0.0.1:${port}/api/v3`,
    // The suites read traffic events' data (frames, ApplicationUps) from NATS without opening a stream (`watched` is tested in libs/events' event-batches int-spec).
    EVENTS_DATA: 'always',
    ...databases,
    ...options.env,
  };
  const spawned: Spawned[] = [];
  const healthPorts = new Map<string, number>();
  const udpPorts = new Map<string, number>();
  const lbsPorts = new Map<string, number>();
  const mqttPorts = new Map<string, number>();
  const spawnComponent = (name: string) =>
    spawnApp(name, `apps/${name.split('#')[0]}/src/main.js`, [], {
      ...env,
      HEALTH_PORT: String(healthPorts.get(name)),
      ...(udpPorts.has(name) ? { GS_UDP_PORT: String(udpPorts.get(name)), GS_UDP_HOST: '127.0.0.1' } : {}),
      ...(lbsPorts.has(name) ? { GS_LBS_PORT: String(lbsPorts.get(name)), GS_LBS_HOST: '127.0.0.1' } : {}),
      ...(mqttPorts.has(name) ? { MQTT_PORT: String(mqttPorts.get(name)), MQTT_HOST: '127.0.0.1' } : {}),
      ...options.envOf?.(name),
    });
  for (const c of components) {
    for (let i = 0; i < (options.replicas ?? 1); i++) {
      const name = `${c}#${i}`;
      healthPorts.set(name, await freePort());
      if (c === 'gs') udpPorts.set(name, await freeUdpPort());
      if (c === 'gs') lbsPorts.set(name, await freePort());
      // The machine's own mosquitto may hold MQTT's 1883.
      if (c === 'as') mqttPorts.set(name, await freePort());
      spawned.push(spawnComponent(name));
    }
  }
  // Gateways answer their own /readyz on their HTTP port; the first one's port is PUBLIC_URL's.
  const gatewayPorts = new Map<string, number>();
  const gateways = options.gatewayReplicas ?? 1;
  for (let i = 0; i < gateways; i++) gatewayPorts.set(gateways === 1 ? 'gateway' : `gateway#${i}`, i === 0 ? port : await freePort());
  const spawnGateway = (name: string) =>
    spawnApp(name, 'apps/gateway/src/main.js', [], {
      ...env,
      HTTP_PORT: String(gatewayPorts.get(name)),
      // MQTT over WebSocket: piped to the first AS replica's MQTT listener (a Service in front of all of them in production).
      ...(mqttPorts.has('as#0') ? { MQTT_WS_UPSTREAM: `127.0.0.1:${mqttPorts.get('as#0')}` } : {}),
      ...options.envOf?.(name),
    });
  for (const name of gatewayPorts.keys()) spawned.push(spawnGateway(name));
  const baseUrls = [...gatewayPorts.values()].map((p) => `${options.httpsCa ? 'https' : 'http'}://127.0.0.1:${p}`);
  const baseUrl = baseUrls[0];
  const readyUrls = [...baseUrls.map((url) => `${url}/readyz`), ...[...healthPorts.values()].map((p) => `http://127.0.0.1:${p}/readyz`)];
  const stop = async () => {
    await stopAll(spawned);
    for (const url of Object.values(databases)) await dropMysqlDatabase(url, options.mysqlTls).catch(() => undefined);
    // The events service keeps history in a JetStream stream of the subject prefix: not left behind.
    if (components.includes('events')) await deleteJetStreamStream(`EVENTS_${env.NATS_SUBJECT_PREFIX}`, natsUrl);
    if (components.includes('as')) await deleteJetStreamStream(`WEBHOOKS_${env.NATS_SUBJECT_PREFIX}`, natsUrl);
    if (components.includes('ns')) await deleteJetStreamStream(`KV_NS_UPLINKS_${env.NATS_SUBJECT_PREFIX}`, natsUrl);
  };
  const processes = new Map(spawned.map((s) => [s.name, s.child]));
  const restart = async (name: string) => {
    const index = spawned.findIndex((s) => s.name === name);
    const readyPort = healthPorts.get(name) ?? gatewayPorts.get(name);
    if (index < 0 || readyPort === undefined) throw new Error(`no component process ${name}`);
    const old = spawned[index];
    if (old.child.exitCode === null && old.child.signalCode === null) {
      const exited = new Promise((res) => old.child.once('exit', res));
      old.child.kill('SIGKILL');
      await exited;
    }
    const fresh = gatewayPorts.has(name) ? spawnGateway(name) : spawnComponent(name);
    fresh.output.unshift(...old.output, `--- ${name} restarted\n`);
    spawned[index] = fresh;
    processes.set(name, fresh.child);
    const readyUrl = healthPorts.has(name) ? `http://127.0.0.1:${readyPort}/readyz` : `${baseUrls[0].split(':')[0]}://127.0.0.1:${readyPort}/readyz`;
    await waitReady([readyUrl], [fresh], undefined, options.httpsCa);
  };
  try {
    await waitReady(readyUrls, spawned, undefined, options.httpsCa);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    mode: 'distributed',
    baseUrl,
    baseUrls,
    adminKey,
    processes,
    healthPorts,
    udpPort: udpPorts.get('gs#0'),
    udpPorts,
    lbsPort: lbsPorts.get('gs#0'),
    lbsPorts,
    mqttPort: mqttPorts.get('as#0'),
    mqttPorts,
    logs: () => spawned.map((s) => s.output.join('')).join('\n'),
    logsOf: (name) => spawned.find((s) => s.name === name)?.output.join('') ?? '',
    restart,
    stop,
  };
}

/** The all-in-one process in embedded mode (SQLite under a temporary DATA_DIR, in-process transport). */
export async function startEmbeddedStack(options: { env?: Record<string, string>; nodeFlags?: string[] } = {}): Promise<StackUnderTest> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lw-embedded-'));
  const adminKey = `NNSXS.TEST${randomBytes(16).toString('hex').toUpperCase()}.${randomBytes(24).toString('hex').toUpperCase()}`;
  const port = await freePort();
  const udpPort = await freeUdpPort();
  const lbsPort = await freePort();
  const mqttPort = await freePort();
  const spawnStack = () =>
    spawnApp(
      'stack',
      'apps/stack/src/main.js',
      ['start'],
      {
        DATA_DIR: dataDir,
        GS_UDP_PORT: String(udpPort),
        GS_UDP_HOST: '127.0.0.1',
        GS_LBS_PORT: String(lbsPort),
        GS_LBS_HOST: '127.0.0.1',
        MQTT_PORT: String(mqttPort),
        MQTT_HOST: '127.0.0.1',
        HTTP_PORT: String(port),
        ADMIN_API_KEY: adminKey,
        PUBLIC_URL: `http://127.0.0.1:${port}/api/v3`,
        ...options.env,
      },
      options.nodeFlags,
    );
  let stack = spawnStack();
  const baseUrl = `http://127.0.0.1:${port}`;
  const processes = new Map([['stack', stack.child]]);
  const stop = async () => {
    await stopAll([stack]);
    rmSync(dataDir, { recursive: true, force: true });
  };
  /** SIGKILLs the process (a crash: nothing is flushed or closed) and starts it again on the same DATA_DIR, ports and environment. */
  const restart = async (name: string) => {
    if (name !== 'stack') throw new Error(`no process ${name} in embedded mode (only \`stack\`)`);
    const old = stack;
    if (old.child.exitCode === null && old.child.signalCode === null) {
      const exited = new Promise((res) => old.child.once('exit', res));
      old.child.kill('SIGKILL');
      await exited;
    }
    stack = spawnStack();
    stack.output.unshift(...old.output, '--- stack restarted\n');
    processes.set('stack', stack.child);
    await waitReady([`${baseUrl}/readyz`], [stack]);
  };
  try {
    await waitReady([`${baseUrl}/readyz`], [stack]);
  } catch (err) {
    await stop();
    throw err;
  }
  const logs = () => stack.output.join('');
  return {
    mode: 'embedded',
    baseUrl,
    adminKey,
    processes,
    healthPorts: new Map(),
    udpPort,
    lbsPort,
    mqttPort,
    logs,
    logsOf: (name) => (name === 'stack' ? logs() : ''),
    restart,
    stop,
  };
}

/** Deletes the JetStream stream the events service keeps for a subject prefix (`EVENTS_<prefix>`), if any. */
export async function deleteEventStream(subjectPrefix: string | undefined): Promise<void> {
  await deleteJetStreamStream(subjectPrefix ? `EVENTS_${subjectPrefix}` : 'EVENTS');
}

/** Deletes the JetStream work queue of the AS webhook delivery for a subject prefix (`WEBHOOKS_<prefix>`), if any. */
export async function deleteWebhookStream(subjectPrefix: string | undefined): Promise<void> {
  await deleteJetStreamStream(subjectPrefix ? `WEBHOOKS_${subjectPrefix}` : 'WEBHOOKS');
}

/** Deletes a JetStream stream of the test NATS (a suite's own, named after its subject prefix), if it exists. */
export async function deleteJetStreamStream(name: string, natsUrl = TEST_NATS_URL): Promise<void> {
  const nc = await connect({ servers: natsUrl, timeout: 2000 }).catch(() => undefined);
  if (!nc) return; // a private broker already stopped: nothing to clean

  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(name).catch(() => false);
  } finally {
    await nc.close();
  }
}
