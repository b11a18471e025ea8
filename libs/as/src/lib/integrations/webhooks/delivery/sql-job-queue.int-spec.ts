import type { DataSource } from 'typeorm';
import { openTestDataSource } from '@lorawan/registry/conformance';
import { AS_MIGRATIONS } from '../../../migrations';
import { SqlJobQueue } from './sql-job-queue';
import { describeWebhookDeliveryConformance } from './webhook-delivery.conformance';
import type { JobMessage, WebhookJob } from './webhook-job';

/** The delay of the nak-ed job in the restart test. */
const NAK_DELAY_MS = 4000;

const DRIVERS = [
  ['mysql', 'MySQL (TypeORM, mysql2)'],
  ['sqlite', 'SQLite (TypeORM, better-sqlite3)'],
] as const;

const job = (n: number, notBefore?: number) => ({ attempt: n, ...(notBefore === undefined ? {} : { not_before: notBefore }) }) as WebhookJob;
const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check(); await sleep(5)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

async function storedJobs(ds: DataSource): Promise<Array<{ attempt: number; claimed: number; not_before: number }>> {
  const rows = (await ds.query('SELECT claimed, not_before, job FROM webhook_jobs ORDER BY id')) as Array<{
    claimed: number | string;
    not_before: number | string;
    job: string;
  }>;
  return rows.map((r) => ({ attempt: (JSON.parse(r.job) as WebhookJob).attempt, claimed: Number(r.claimed), not_before: Number(r.not_before) }));
}

for (const [driver, name] of DRIVERS) {
  describeWebhookDeliveryConformance(
    `SQL table on ${name} (embedded)`,
    async () => {
      const db = await openTestDataSource('as', AS_MIGRATIONS, driver);
      const open = () => SqlJobQueue.open(db.ds, { maxInFlight: 2000 });
      const queues = [await open()];
      return {
        queue: queues[0],
        reopen: async () => {
          const queue = await open();
          queues.push(queue);
          return queue;
        },
        remaining: async () => (await storedJobs(db.ds)).length,
        close: async () => {
          await Promise.all(queues.map((q) => q.close()));
          await db.close();
        },
      };
    },
    { redelivery: 'on-restart' },
  );

  describe(`SqlJobQueue on ${name}`, () => {
    let db: Awaited<ReturnType<typeof openTestDataSource>>;
    const queues: SqlJobQueue[] = [];
    const open = async (maxInFlight: number, maxJobs?: number) => {
      const queue = await SqlJobQueue.open(db.ds, { maxInFlight, maxJobs });
      queues.push(queue);
      return queue;
    };

    beforeEach(async () => {
      db = await openTestDataSource('as', AS_MIGRATIONS, driver);
    });

    afterEach(async () => {
      jest.restoreAllMocks();
      await Promise.all(queues.splice(0).map((q) => q.close()));
      await db.close();
    });

    it('hands out at most maxInFlight unsettled messages, oldest first, more as they are settled', async () => {
      const queue = await open(2);
      const got: JobMessage[] = [];
      queue.start((m) => got.push(m));
      await queue.enqueue([job(1), job(2)]);
      await queue.enqueue([job(3)]);
      await until(() => got.length === 2, 'two messages');
      await sleep(100);
      expect(got.map((m) => m.job.attempt)).toEqual([1, 2]);
      got[0].ack();
      got[0].ack();
      await until(() => got.length === 3, 'the third message');
      expect(got.map((m) => m.job.attempt)).toEqual([1, 2, 3]);
      await until(() => queue.size === 2, 'the ack stored');
      expect(await queue.depth()).toBe(2);
      expect((await storedJobs(db.ds)).map((j) => j.attempt)).toEqual([2, 3]);
    });

    it('hands a nak-ed message out again after its delay, and a job not due yet only once it is', async () => {
      const queue = await open(10);
      const got: Array<{ m: JobMessage; at: number }> = [];
      queue.start((m) => got.push({ m, at: Date.now() }));
      const queuedAt = Date.now();
      await queue.enqueue([job(1), job(2, queuedAt + 600)]);
      await until(() => got.length === 1, 'the due job');
      const nakAt = Date.now();
      got[0].m.nak(300);
      await until(() => got.length === 3, 'the nak-ed job and the later one', 3000);
      // Each when it falls due: the nak-ed one at +300 ms, the later one at +600 ms.
      expect(got.map((g) => g.m.job.attempt)).toEqual([1, 1, 2]);
      expect(got[1].at - nakAt).toBeGreaterThanOrEqual(295);
      expect(got[2].at - queuedAt).toBeGreaterThanOrEqual(595);
      expect(queue.size).toBe(2);
    });

    it('reads nothing while there is nothing to do (no polling)', async () => {
      const queue = await open(10);
      const got: JobMessage[] = [];
      queue.start((m) => got.push(m));
      await queue.enqueue([job(1)]);
      await until(() => got.length === 1, 'the job');
      got[0].ack();
      await until(() => queue.size === 0, 'the ack stored');
      await sleep(50);
      const runners = jest.spyOn(db.ds, 'createQueryRunner');
      const sqlite =
        driver === 'sqlite'
          ? jest.spyOn((db.ds.driver as unknown as { databaseConnection: { prepare(sql: string): unknown } }).databaseConnection, 'prepare')
          : undefined;
      await sleep(500);
      expect(runners).not.toHaveBeenCalled();
      if (sqlite) expect(sqlite).not.toHaveBeenCalled();
      runners.mockRestore();
      sqlite?.mockRestore();
    });

    it('refuses jobs beyond maxJobs (queue_full), all of a batch or none, and takes them again once there is room', async () => {
      const queue = await open(1, 3);
      const got: JobMessage[] = [];
      queue.start((m) => got.push(m));
      await queue.enqueue([job(1), job(2)]);
      await expect(queue.enqueue([job(3), job(4)])).rejects.toMatchObject({
        namespace: 'pkg/applicationserver/io/web',
        errorName: 'queue_full',
        attributes: { max_jobs: 3 },
      });
      expect(queue.size).toBe(2);
      expect(await storedJobs(db.ds)).toHaveLength(2);
      await until(() => got.length === 1, 'the first job');
      got[0].ack();
      await until(() => queue.size === 1, 'the ack stored');
      await queue.enqueue([job(3), job(4)]);
      expect(queue.size).toBe(3);
      expect((await storedJobs(db.ds)).map((j) => j.attempt)).toEqual([2, 3, 4]);
    });

    it('counts the jobs already stored against maxJobs when it opens', async () => {
      const first = await open(1, 3);
      await first.enqueue([job(1), job(2)]);
      await first.close();
      const second = await open(1, 3);
      expect(await second.depth()).toBe(2);
      await expect(second.enqueue([job(3), job(4)])).rejects.toMatchObject({ errorName: 'queue_full' });
      await second.enqueue([job(3)]);
      expect(await storedJobs(db.ds)).toHaveLength(3);
    });

    it('stores all the jobs of one enqueue or none of them', async () => {
      // One row of the batch fails in the middle of the transaction: on MySQL a trigger refuses it; on
      // SQLite the connection's second INSERT of the batch throws (inside the same better-sqlite3
      // transaction, as a failing statement would).
      if (driver === 'mysql') {
        await db.ds.query(
          `CREATE TRIGGER refuse_marked BEFORE INSERT ON webhook_jobs FOR EACH ROW
           BEGIN IF NEW.job LIKE '%"attempt":99%' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused'; END IF; END`,
        );
      } else {
        type Connection = { prepare(sql: string): { run(...params: unknown[]): unknown } };
        const connection = (db.ds.driver as unknown as { databaseConnection: Connection }).databaseConnection;
        const prepare = connection.prepare.bind(connection);
        jest.spyOn(connection, 'prepare').mockImplementation((sql: string) => {
          const statement = prepare(sql);
          if (!sql.startsWith('INSERT INTO webhook_jobs')) return statement;
          return {
            run: (...params: unknown[]) => {
              if (String(params[1]).includes('"attempt":99')) throw new Error('refused');
              return statement.run(...params);
            },
          } as ReturnType<Connection['prepare']>;
        });
      }
      const queue = await open(10, 3);
      const got: JobMessage[] = [];
      queue.start((m) => got.push(m));
      await expect(queue.enqueue([job(1), job(99), job(2)])).rejects.toThrow(/refused/);
      expect(await storedJobs(db.ds)).toEqual([]);
      expect(queue.size).toBe(0);
      await queue.enqueue([job(3), job(4), job(5)]);
      await until(() => got.length === 3, 'the next batch');
      expect(got.map((m) => m.job.attempt)).toEqual([3, 4, 5]);
    });

    it('keeps its jobs across a restart: an unsettled one is handed out again, a nak-ed one keeps its delay, an acked one is gone', async () => {
      const before = await open(10);
      const got: JobMessage[] = [];
      before.start((m) => got.push(m));
      await before.enqueue([job(1), job(2), job(3)]);
      await before.enqueue([job(4)]);
      await until(() => got.length === 4, 'four jobs');
      got[0].ack();
      const nakAt = Date.now();
      // Long enough that this queue does not claim it again before the checks below have seen it waiting (a slow CI machine took over a second).
      got[1].nak(NAK_DELAY_MS);
      await until(() => before.size === 3, 'the ack stored');
      let delayed = { attempt: 2, claimed: 1, not_before: 0 };
      for (const deadline = Date.now() + 5000; delayed.claimed === 1 && Date.now() < deadline; await sleep(5)) {
        delayed = (await storedJobs(db.ds)).find((j) => j.attempt === 2) ?? delayed;
      }
      expect(delayed.claimed).toBe(0);
      expect(delayed.not_before).toBeGreaterThanOrEqual(nakAt + NAK_DELAY_MS);
      // The process dies: job 3 is being delivered, job 4 too; nothing more is settled.
      await before.close();
      got[2].ack();
      got[3].nak(0);
      expect((await storedJobs(db.ds)).map((j) => [j.attempt, j.claimed])).toEqual([
        [2, 0],
        [3, 1],
        [4, 1],
      ]);

      const after = await open(10);
      expect(await after.depth()).toBe(3);
      const again: Array<{ m: JobMessage; at: number }> = [];
      after.start((m) => again.push({ m, at: Date.now() }));
      await until(() => again.length === 2, 'the unsettled jobs');
      expect(again.map((g) => g.m.job.attempt)).toEqual([3, 4]);
      await until(() => again.length === 3, 'the nak-ed job', NAK_DELAY_MS + 3000);
      expect(again[2].m.job.attempt).toBe(2);
      expect(again[2].at).toBeGreaterThanOrEqual(delayed.not_before);
      for (const g of again) g.m.ack();
      await until(() => after.size === 0, 'the acks stored');
      expect(await storedJobs(db.ds)).toEqual([]);
    });
  });
}
