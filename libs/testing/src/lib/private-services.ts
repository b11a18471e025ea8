import { createConnection } from 'mysql2/promise';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectSocket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports';

/**
 * A database or broker server of one test suite's own, for injecting faults the machine's shared
 * MariaDB and NATS must never suffer: SIGKILL it, start it again on the same port with the same
 * data, or freeze it. Call `stop()` in `afterAll` (it also works after a failed test, and more than
 * once). Should a test process die without it, the server dies too: it is spawned with a parent-death
 * signal (`setpriv --pdeathsig KILL`, Linux), and a normal exit of the test process kills it as well.
 * Only the data directory under the OS temp dir can then be left behind.
 */
export interface PrivateService {
  /** `mysql://root@127.0.0.1:<port>` (no database: add `/<name>`) or `nats://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** The server's data directory (MariaDB data dir, JetStream store dir). */
  readonly dataDir: string;
  /** Whether the server process is running (it may also have exited by itself, e.g. after `SHUTDOWN`). */
  readonly running: boolean;
  /** SIGKILLs the server (no clean shutdown) and resolves once it has exited. The data stays. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and data, and resolves once it accepts connections. */
  start(): Promise<void>;
  /** SIGSTOP, resolved once every thread is stopped: the server keeps its sockets open and the kernel still accepts connections, but nothing answers (a hung server). */
  pause(): Promise<void>;
  /** SIGCONT after `pause()`: everything held is answered. */
  resume(): Promise<void>;
  /** Kills the server and removes its data directory. Idempotent. */
  stop(): Promise<void>;
  /** The server's output (the last 64 KiB of each run), for failure messages. */
  logs(): string;
}

const MAX_LOG_CHARS = 64 * 1024;
const READY_TIMEOUT_MS = 30_000;

/** `mariadbd` of MariaDB 10.11 and its data-dir initialiser; override for another machine. */
const MARIADBD = process.env.TEST_MARIADBD ?? '/usr/sbin/mariadbd';
const MARIADB_INSTALL_DB = process.env.TEST_MARIADB_INSTALL_DB ?? '/usr/bin/mariadb-install-db';
const NATS_SERVER = process.env.TEST_NATS_SERVER ?? '/usr/sbin/nats-server';
/** mosquitto 2 (Debian `mosquitto`) and its password tool: the users' MQTT brokers of the Pub/Sub tests. */
const MOSQUITTO = process.env.TEST_MOSQUITTO ?? '/usr/sbin/mosquitto';
const MOSQUITTO_PASSWD = process.env.TEST_MOSQUITTO_PASSWD ?? '/usr/bin/mosquitto_passwd';
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => process.platform === 'linux' && existsSync(path));

/** The server programs `startPrivateMariaDb` and `startPrivateNats` run, with the Debian package of each. */
export const SERVER_PROGRAMS = {
  mariadb: [
    { path: MARIADBD, package: 'mariadb-server', env: 'TEST_MARIADBD' },
    { path: MARIADB_INSTALL_DB, package: 'mariadb-server', env: 'TEST_MARIADB_INSTALL_DB' },
  ],
  nats: [{ path: NATS_SERVER, package: 'nats-server', env: 'TEST_NATS_SERVER' }],
} as const;

/** The programs of a kind of server that are not installed (an empty list: it can be started). */
export function missingPrograms(kind: keyof typeof SERVER_PROGRAMS): Array<{ path: string; package: string; env: string }> {
  return SERVER_PROGRAMS[kind].filter((program) => !existsSync(program.path));
}

/**
 * The command line that runs `command` so that the kernel SIGKILLs it when the process that spawned
 * it dies (`setpriv --pdeathsig KILL` sets PR_SET_PDEATHSIG, then execs: the pid is the server's).
 * Without `setpriv` the command is run as it is; the exit hook below is then the only guard.
 */
export function dieWithParent(command: string, args: readonly string[]): [string, string[]] {
  return SETPRIV ? [SETPRIV, ['--pdeathsig', 'KILL', '--', command, ...args]] : [command, [...args]];
}

/**
 * Every server this process started and has not stopped: SIGKILLed when the process exits normally
 * (outside jest: jest gives each test file a copy of `process` whose `exit` never fires, so there the
 * parent-death signal is the guard).
 */
const live = new Set<ChildProcess>();
const killLive = () => {
  for (const child of live) child.kill('SIGKILL');
};

/** One server process, started again on demand with the same command line. */
class ServerProcess {
  private child?: ChildProcess;
  /** Resolves when the child has exited and its output is read to the end. */
  private closed = Promise.resolve();
  private output = '';

  constructor(
    private readonly name: string,
    private readonly command: string,
    private readonly args: readonly string[],
  ) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Why the process is not running, with all its output. */
  async describeExit(): Promise<string> {
    await this.closed;
    return `${this.name} exited (${this.child?.exitCode ?? this.child?.signalCode}):\n${this.output}`;
  }

  spawn(): void {
    if (this.running) throw new Error(`${this.name} is already running`);
    const [command, args] = dieWithParent(this.command, this.args);
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.output = '';
    const keep = (d: Buffer) => {
      this.output = (this.output + d.toString()).slice(-MAX_LOG_CHARS);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('error', (err) => keep(Buffer.from(`spawn error: ${err.message}\n`)));
    if (live.size === 0) process.on('exit', killLive);
    live.add(child);
    child.once('exit', () => this.forget(child));
    this.closed = new Promise((resolve) => child.once('close', () => resolve()));
    // A forgotten `stop()` must not keep the test process alive; the server then dies with it.
    child.unref();
    for (const stream of [child.stdout, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
    this.child = child;
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Referenced until it has exited: a process with nothing else to wait for (jest's global
    // teardown) would otherwise end right here, with exit code 0 whatever the tests said.
    child.ref();
    child.kill('SIGKILL');
    await exited;
  }

  /** Sends SIGSTOP or SIGCONT and waits until the process is (no longer) stopped: a signal is delivered asynchronously. */
  async signal(signal: 'SIGSTOP' | 'SIGCONT'): Promise<void> {
    const pid = this.child?.pid;
    if (!this.running || pid === undefined) throw new Error(`${this.name} is not running`);
    this.child?.kill(signal);
    const stopped = signal === 'SIGSTOP';
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 1))) {
      const state = processState(pid);
      if (state === undefined || (state === 'T') === stopped) return;
    }
    throw new Error(`${this.name} did not ${stopped ? 'stop' : 'continue'} within 5 s`);
  }

  logs(): string {
    return this.output;
  }

  private forget(child: ChildProcess): void {
    live.delete(child);
    if (live.size === 0) process.off('exit', killLive);
  }
}

/**
 * `T` when every thread of the process is stopped, else the state of one that is not (from
 * `/proc/<pid>/task/<tid>/stat`); undefined where there is no `/proc` (not Linux) or the process is gone.
 */
function processState(pid: number): string | undefined {
  try {
    const states = readdirSync(`/proc/${pid}/task`).map((tid) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return stat.charAt(stat.lastIndexOf(')') + 2);
    });
    return states.find((state) => state !== 'T') ?? 'T';
  } catch {
    return undefined;
  }
}

/** Polls `probe` until it succeeds; fails early with the server's output if the server exits. */
async function waitUntilReady(server: ServerProcess, probe: () => Promise<void>, what: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last: unknown;
  while (Date.now() < deadline) {
    if (!server.running) throw new Error(await server.describeExit());
    try {
      await probe();
      return;
    } catch (err) {
      last = err;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${what} not ready after ${READY_TIMEOUT_MS} ms (${String(last)}):\n${server.logs()}`);
}

function privateService(url: string, port: number, dataDir: string, baseDir: string, server: ServerProcess, ready: () => Promise<void>): PrivateService {
  const start = async () => {
    server.spawn();
    try {
      await waitUntilReady(server, ready, url);
    } catch (err) {
      await server.kill();
      throw err;
    }
  };
  return {
    url,
    port,
    dataDir,
    get running() {
      return server.running;
    },
    kill: () => server.kill(),
    start,
    pause: () => server.signal('SIGSTOP'),
    resume: () => server.signal('SIGCONT'),
    stop: async () => {
      await server.kill();
      rmSync(baseDir, { recursive: true, force: true });
    },
    logs: () => server.logs(),
  };
}

/** Runs a command to completion; rejects with its output when it fails. */
function run(command: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const [cmd, argv] = dieWithParent(command, args);
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${command} failed (${code ?? signal}):\n${output}`))));
  });
}

/**
 * Server settings of the private MariaDB: small (about 55 MB resident instead of 85), quick to
 * start, and durable against SIGKILL (`innodb_flush_log_at_trx_commit=2` writes the log to the OS
 * at each commit, which survives the process; only an OS crash could lose it). The character set is
 * the machine's server default (Debian's utf8mb4), not the compiled-in latin1.
 */
const MARIADB_SERVER_OPTIONS = [
  '--skip-name-resolve',
  '--character-set-server=utf8mb4',
  '--collation-server=utf8mb4_general_ci',
  '--performance-schema=OFF',
  '--innodb-buffer-pool-size=6M', // the least InnoDB takes with 16 KiB pages
  '--innodb-log-file-size=4M',
  '--innodb-log-buffer-size=2M',
  '--innodb-flush-log-at-trx-commit=2',
  '--skip-innodb-doublewrite',
  '--skip-innodb-adaptive-hash-index',
  '--key-buffer-size=64K',
  '--aria-pagecache-buffer-size=1M',
  '--query-cache-size=0',
  '--table-open-cache=64',
  '--host-cache-size=0',
];

/**
 * A MariaDB of its own on a free loopback port, with a fresh data directory under the OS temp dir
 * (`mariadb-install-db`: root without a password, no test database). `root` connects from
 * 127.0.0.1 without a password, as on the machine's server, so `url` + `/<database>` works with
 * `ensureMysqlDatabase` and `openDataSource`. `o.bufferPoolMb`: its InnoDB buffer pool (default
 * the least InnoDB takes, for a suite that kills it and starts it again).
 */
export async function startPrivateMariaDb(
  o: { bufferPoolMb?: number; ssl?: { caFile: string; certFile: string; keyFile: string } } = {},
): Promise<PrivateService> {
  const baseDir = mkdtempSync(join(tmpdir(), 'lw-mariadb-'));
  const dataDir = join(baseDir, 'data');
  const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
  try {
    await run(MARIADB_INSTALL_DB, [
      '--no-defaults',
      `--datadir=${dataDir}`,
      ...asRoot,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      ...MARIADB_SERVER_OPTIONS,
    ]);
  } catch (err) {
    rmSync(baseDir, { recursive: true, force: true });
    throw err;
  }
  const port = await freePort();
  const server = new ServerProcess('mariadbd', MARIADBD, [
    '--no-defaults',
    `--datadir=${dataDir}`,
    ...asRoot,
    '--bind-address=127.0.0.1',
    `--port=${port}`,
    `--socket=${join(baseDir, 'mysqld.sock')}`,
    `--pid-file=${join(baseDir, 'mysqld.pid')}`,
    ...MARIADB_SERVER_OPTIONS,
    ...(o.bufferPoolMb ? [`--innodb-buffer-pool-size=${o.bufferPoolMb}M`] : []),
    // `o.ssl`: the server also offers TLS with this certificate (clients choose; users made `REQUIRE SSL` must use it).
    ...(o.ssl ? [`--ssl-ca=${o.ssl.caFile}`, `--ssl-cert=${o.ssl.certFile}`, `--ssl-key=${o.ssl.keyFile}`] : []),
  ]);
  const url = `mysql://root@127.0.0.1:${port}`;
  const ready = async () => {
    const conn = await createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
    try {
      await conn.query('SELECT 1');
    } finally {
      conn.destroy();
    }
  };
  return started(privateService(url, port, dataDir, baseDir, server, ready));
}

/**
 * Whether a NATS server greets on the port (its `INFO` line comes once it accepts clients). A raw
 * socket rather than the client: nats.js leaves its socket open when `connect()` times out.
 */
function natsGreets(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connectSocket({ host: '127.0.0.1', port });
    const done = (err?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => done(new Error('no INFO within 1 s')), 1000);
    socket.once('data', (d: Buffer) => done(d.toString().startsWith('INFO ') ? undefined : new Error(`not NATS: ${d.toString().slice(0, 40)}`)));
    socket.once('error', done);
    socket.once('end', () => done(new Error('closed without INFO')));
  });
}

/**
 * A NATS server with JetStream of its own on a free loopback port, its store under the OS temp dir.
 * `o.config`: nats-server configuration text (TLS, authorization) written to a file it is started
 * with (address, port and store stay the command line's); `o.tls`: the URL is `tls://`.
 */
export async function startPrivateNats(o: { config?: string; tls?: boolean } = {}): Promise<PrivateService> {
  const baseDir = mkdtempSync(join(tmpdir(), 'lw-nats-'));
  const port = await freePort();
  const configArgs: string[] = [];
  if (o.config !== undefined) {
    const file = join(baseDir, 'nats-server.conf');
    writeFileSync(file, o.config, { mode: 0o600 });
    configArgs.push('-c', file);
  }
  const server = new ServerProcess('nats-server', NATS_SERVER, [...configArgs, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', baseDir]);
  const url = `${o.tls ? 'tls' : 'nats'}://127.0.0.1:${port}`;
  const ready = () => natsGreets(port);
  return started(privateService(url, port, baseDir, baseDir, server, ready));
}

/** Resolves once the port accepts a TCP connection (mosquitto says nothing first). */
function tcpAccepts(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connectSocket({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

/**
 * A mosquitto 2 broker of its own on a free loopback port (never the machine's on 1883), without
 * persistence. `o.users`: username → password (then anonymous clients are refused); `o.tls`: the
 * listener speaks TLS with these PEM files. `url` is `mqtt://127.0.0.1:<port>` (`mqtts://` with TLS).
 */
export async function startPrivateMosquitto(
  o: { users?: Record<string, string>; tls?: { cert: string; key: string; ca?: string; requireClientCert?: boolean } } = {},
): Promise<PrivateService> {
  const baseDir = mkdtempSync(join(tmpdir(), 'lw-mosquitto-'));
  const port = await freePort();
  // `user`: mosquitto started as root would switch to the `mosquitto` user, which cannot read the temp dir.
  const lines = [
    `listener ${port} 127.0.0.1`,
    `user ${userInfo().username}`,
    'persistence false',
    'log_dest stdout',
    'log_type error',
    'log_type warning',
    'log_type notice',
  ];
  if (o.users) {
    const passwords = join(baseDir, 'passwords');
    writeFileSync(passwords, '', { mode: 0o600 });
    for (const [user, password] of Object.entries(o.users)) await run(MOSQUITTO_PASSWD, ['-b', passwords, user, password]);
    lines.push('allow_anonymous false', `password_file ${passwords}`);
  } else {
    lines.push('allow_anonymous true');
  }
  if (o.tls) {
    for (const [name, pem] of Object.entries({ cert: o.tls.cert, key: o.tls.key, ...(o.tls.ca ? { ca: o.tls.ca } : {}) })) {
      writeFileSync(join(baseDir, `${name}.pem`), pem, { mode: 0o600 });
    }
    lines.push(`certfile ${join(baseDir, 'cert.pem')}`, `keyfile ${join(baseDir, 'key.pem')}`);
    if (o.tls.ca) lines.push(`cafile ${join(baseDir, 'ca.pem')}`);
    if (o.tls.requireClientCert) lines.push('require_certificate true');
  }
  const config = join(baseDir, 'mosquitto.conf');
  writeFileSync(config, lines.join('\n') + '\n', { mode: 0o600 });
  const server = new ServerProcess('mosquitto', MOSQUITTO, ['-c', config]);
  return started(privateService(`${o.tls ? 'mqtts' : 'mqtt'}://127.0.0.1:${port}`, port, baseDir, baseDir, server, () => tcpAccepts(port)));
}

/** Starts a service, removing what it left behind when it does not come up. */
async function started(service: PrivateService): Promise<PrivateService> {
  try {
    await service.start();
  } catch (err) {
    await service.stop();
    throw err;
  }
  return service;
}
