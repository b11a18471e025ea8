import { connect, type NatsConnection, StringCodec } from 'nats';
import { createConnection } from 'mysql2/promise';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dieWithParent, type PrivateService, startPrivateMariaDb, startPrivateNats } from './private-services';

/** Whether a process is gone (a killed child whose new parent has not reaped it yet counts as gone). */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z';
  } catch {
    return true;
  }
}

async function eventually(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('startPrivateMariaDb', () => {
  let db: PrivateService;
  beforeAll(async () => {
    db = await startPrivateMariaDb();
  });
  afterAll(async () => db?.stop());

  it('serves queries, fails while killed, and serves the same data again after start()', async () => {
    expect(db.url).toBe(`mysql://root@127.0.0.1:${db.port}`);
    const conn = await createConnection({ uri: db.url });
    await conn.query('CREATE DATABASE faults');
    await conn.query('CREATE TABLE faults.kept (id INT PRIMARY KEY, name VARCHAR(10)) ENGINE=InnoDB');
    await conn.query(`INSERT INTO faults.kept VALUES (1, 'one')`);
    expect(await conn.query('SELECT @@character_set_server AS cs')).toEqual([[{ cs: 'utf8mb4' }], expect.anything()]);

    const inFlight = conn.query('SELECT SLEEP(10)').catch((err: unknown) => err);
    await db.kill();
    expect(db.running).toBe(false);
    // The server's sockets are closed (FIN) or reset (RST), depending on timing.
    expect(await inFlight).toMatchObject({ code: expect.stringMatching(/^(PROTOCOL_CONNECTION_LOST|ECONNRESET)$/) });
    await expect(conn.query('SELECT 1')).rejects.toThrow("Can't add new command when connection is in closed state");
    await expect(createConnection({ uri: db.url })).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    await db.start();
    expect(db.running).toBe(true);
    const again = await createConnection({ uri: db.url });
    try {
      expect((await again.query('SELECT id, name FROM faults.kept'))[0]).toEqual([{ id: 1, name: 'one' }]);
    } finally {
      await again.end();
    }
  });

  it('freezes with pause(): connections are accepted but nothing answers until resume()', async () => {
    const conn = await createConnection({ uri: db.url });
    try {
      await db.pause();
      const answer = conn.query('SELECT 42 AS x');
      const early = await Promise.race([answer.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('pending'), 300))]);
      expect(early).toBe('pending');
      await expect(createConnection({ uri: db.url, connectTimeout: 300 })).rejects.toMatchObject({ code: 'ETIMEDOUT' });
      await db.resume();
      expect((await answer)[0]).toEqual([{ x: 42 }]);
    } finally {
      await conn.end();
    }
  });

  it('removes its data directory on stop(), and stop() may be called again', async () => {
    const other = await startPrivateMariaDb();
    expect(existsSync(other.dataDir)).toBe(true);
    await other.stop();
    expect(other.running).toBe(false);
    expect(existsSync(other.dataDir)).toBe(false);
    await other.stop();
  });
});

describe('startPrivateNats', () => {
  let nats: PrivateService;
  let nc: NatsConnection;
  const sc = StringCodec();

  beforeAll(async () => {
    nats = await startPrivateNats();
    nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 50 });
  });
  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  /** Resolves at the connection's next status event of the type. */
  async function nextStatus(type: 'disconnect' | 'reconnect'): Promise<void> {
    for await (const status of nc.status()) if (status.type === type) return;
  }

  it('answers requests, loses them while killed, and the client reconnects after start() with the JetStream data kept', async () => {
    nc.subscribe('echo', { callback: (_err, msg) => msg.respond(msg.data) });
    expect(sc.decode((await nc.request('echo', sc.encode('hi'), { timeout: 1000 })).data)).toBe('hi');
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: 'KEPT', subjects: ['kept.>'] });
    await nc.jetstream().publish('kept.one', sc.encode('persisted'));

    const disconnected = nextStatus('disconnect');
    await nats.kill();
    await disconnected;
    expect(nc.isClosed()).toBe(false);
    await expect(nc.request('echo', sc.encode('lost'), { timeout: 300 })).rejects.toThrow();

    const reconnected = nextStatus('reconnect');
    await nats.start();
    await reconnected;
    // The subscription is re-established on the new server by the client.
    expect(sc.decode((await nc.request('echo', sc.encode('again'), { timeout: 1000 })).data)).toBe('again');
    const kept = await jsm.streams.getMessage('KEPT', { last_by_subj: 'kept.one' });
    expect(sc.decode(kept.data)).toBe('persisted');
  });

  it('fails start() with the server output when its port was taken meanwhile, and starts once it is free again', async () => {
    const other = await startPrivateNats();
    try {
      await other.kill();
      const squatter = createServer((socket) => socket.destroy());
      await new Promise<void>((resolve) => squatter.listen(other.port, '127.0.0.1', resolve));
      await expect(other.start()).rejects.toThrow(/address already in use/);
      expect(other.running).toBe(false);
      await new Promise((resolve) => squatter.close(resolve));
      await other.start();
      expect(other.running).toBe(true);
    } finally {
      await other.stop();
    }
  });

  it('removes its store on stop(), and stop() may be called again', async () => {
    const other = await startPrivateNats();
    await other.stop();
    expect(other.running).toBe(false);
    expect(existsSync(other.dataDir)).toBe(false);
    await other.stop();
  });
});

describe('dieWithParent', () => {
  it('has the kernel kill a server when the process that started it is SIGKILLed', async () => {
    const [command, args] = dieWithParent('sleep', ['300']);
    // A parent that starts the "server" the way the kit does, tells its pid, and waits.
    const script = `const c = require('node:child_process').spawn(${JSON.stringify(command)}, ${JSON.stringify(args)}, { stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolve) => parent.stdout?.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
    expect(gone(pid)).toBe(false);
    parent.kill('SIGKILL');
    await eventually(() => gone(pid));
  });
});
