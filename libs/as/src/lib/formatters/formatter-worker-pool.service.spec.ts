import { readdirSync } from 'node:fs';
import { isStackError, type StackError } from '@lorawan/errors';
import { register } from 'prom-client';
import { testFormatterPool } from '../testing/as-test-kit';
import type { FormatterWorkerPool } from './formatter-worker-pool.service';

/** The abusive scripts of issue 29, and a few more that reach each limit. */
const SCRIPTS = {
  echo: 'function f(input) { return { data: input }; }',
  memoryBomb: 'function f() { var a = []; while (true) a.push(new Array(100000).fill(1)); }',
  loop: 'function f() { while (true) {} }',
  /** One native call that runs for seconds without reaching QuickJS's interrupt check. */
  neverYields: 'function f() { var s = "x".repeat(1 << 22), n = "x".repeat(1000) + "y"; return { data: { at: s.indexOf(n) } }; }',
  deepOutput: 'function f() { var o = {}; for (var i = 0; i < 5000; i++) o = { a: o }; return { data: o }; }',
  largeOutput: 'function f() { return { data: { s: "x".repeat(100000) } }; }',
  recursion: 'function f() { return f(); }',
  /** QuickJS's own JSON.stringify recurses without checking its stack: the thread's stack overflows inside QuickJS (after about 2 s). */
  hostStack: 'function f() { var o = {}; for (var i = 0; i < 20000; i++) o = { a: o }; return { data: { n: JSON.stringify(o).length } }; }',
};

const call = (script: string, input: unknown = {}) => ({ script, input: JSON.stringify(input), entry: 'f(input)' });

async function errorOf(promise: Promise<unknown>): Promise<StackError> {
  try {
    await promise;
  } catch (err) {
    if (isStackError(err)) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

const threads = () => readdirSync('/proc/self/task').length;

describe('FormatterWorkerPool', () => {
  let pool: FormatterWorkerPool;

  beforeAll(async () => {
    // No runaway budget here: these runs reach the limits on purpose, many times (see the last cases).
    pool = testFormatterPool({ workers: 2, applicationConcurrency: 1, applicationQueue: 4, queue: 8, applicationRunawaysPerMinute: 0 });
    await pool.onModuleInit();
  });
  afterAll(() => pool.close());

  it('runs a script in a worker and answers its value as JSON; `undefined` stays undefined', async () => {
    expect(await pool.run('app', call(SCRIPTS.echo, { bytes: [1, 2], recvTime: '2024-05-01T10:00:00.000Z' }))).toEqual({
      data: { bytes: [1, 2], recvTime: '2024-05-01T10:00:00.000Z' },
    });
    expect(await pool.run('app', { script: '', input: '{}', entry: 'undefined' })).toBeUndefined();
  });

  it.each([
    ['the memory bomb of issue 29', SCRIPTS.memoryBomb, 'script_memory'],
    ['an endless loop', SCRIPTS.loop, 'script_timeout'],
    ['a 5000-deep result', SCRIPTS.deepOutput, 'output_too_deep'],
    ['a 100 kB result', SCRIPTS.largeOutput, 'output_too_large'],
    ['endless recursion', SCRIPTS.recursion, 'script_stack'],
    // QuickJS's JSON.stringify also checks cycles by a linear search: quadratic, and it never reaches the interrupt check.
    ['a deep JSON.stringify (the worker is terminated and replaced)', SCRIPTS.hostStack, 'script_timeout'],
    ['a native call that never reaches the interrupt check (the worker is terminated and replaced)', SCRIPTS.neverYields, 'script_timeout'],
  ])('fails %s with %s, and the pool goes on', async (_name, script, errorName) => {
    const started = Date.now();
    const err = await errorOf(pool.run('abuser', call(script)));
    expect([err.namespace, err.errorName]).toEqual([expect.stringMatching(/^pkg\/(scripting|messageprocessors)\/javascript$/), errorName]);
    // Liveness only (a loaded machine is slow): the run ends, long before the scripts' own end.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await pool.run('other', call(SCRIPTS.echo, { n: 1 }))).toEqual({ data: { n: 1 } });
  });

  it('fails a result the script made invalid by replacing the built-ins the sandbox writes JSON with', async () => {
    const err = await errorOf(pool.run('app', call('function f() { JSON.stringify = function () { return "{"; }; return { data: { a: "b" } }; }')));
    expect([err.namespace, err.errorName, err.attributes]).toEqual(['pkg/messageprocessors/javascript', 'output', { reason: 'the result is not JSON' }]);
  });

  it('keeps its threads: terminated workers are replaced, not added to', async () => {
    // A terminated thread takes a moment to go: count once the process has as few as it will.
    const settled = async (atMost: number) => {
      for (let i = 0; i < 100 && threads() > atMost; i++) await new Promise((r) => setTimeout(r, 50));
      return threads();
    };
    await pool.run('other', call(SCRIPTS.echo));
    const before = threads();
    const metric = async (name: string, result?: string) =>
      (await register.getSingleMetric(name)?.get())?.values.find((v) => result === undefined || v.labels.result === result)?.value ?? 0;
    const [replaced, timeouts, oks] = [
      await metric('lorawan_as_formatter_workers_replaced_total'),
      await metric('lorawan_as_formatter_runs_total', 'timeout'),
      await metric('lorawan_as_formatter_runs_total', 'ok'),
    ];
    for (let i = 0; i < 3; i++) expect((await errorOf(pool.run('abuser', call(SCRIPTS.neverYields)))).errorName).toBe('script_timeout');
    await pool.run('other', call(SCRIPTS.echo));
    await pool.run('other', call(SCRIPTS.echo));
    expect(await settled(before)).toBeLessThanOrEqual(before);
    // Counted: each runaway, each replacement, each good run.
    expect(await metric('lorawan_as_formatter_workers_replaced_total')).toBe(replaced + 3);
    expect(await metric('lorawan_as_formatter_runs_total', 'timeout')).toBe(timeouts + 3);
    expect(await metric('lorawan_as_formatter_runs_total', 'ok')).toBe(oks + 2);
  });

  it("answers another application's calls while one application's scripts loop", async () => {
    const abuse = Array.from({ length: 3 }, () => errorOf(pool.run('abuser', call(SCRIPTS.loop))));
    const answered: string[] = [];
    const others = Array.from({ length: 5 }, (_, i) => pool.run(`tenant-${i}`, call(SCRIPTS.echo, { i })).then(() => answered.push(`tenant-${i}`)));
    await Promise.all(others);
    // The abuser runs one call at a time (FORMATTER_APP_CONCURRENCY 1): the others did not wait for its three loops.
    const abused = await Promise.all(abuse.map((p) => p.then(() => answered.push('abuser'))));
    expect(abused).toHaveLength(3);
    expect(answered.slice(0, 5).sort()).toEqual(['tenant-0', 'tenant-1', 'tenant-2', 'tenant-3', 'tenant-4']);
  });

  it('refuses calls of an application beyond its queue with formatter_busy (429), and beyond the total queue', async () => {
    const running = pool.run('flood', call(SCRIPTS.loop)).catch(() => undefined);
    const waiting = Array.from({ length: 4 }, () => pool.run('flood', call(SCRIPTS.loop)).catch(() => undefined));
    const busy = await errorOf(pool.run('flood', call(SCRIPTS.echo)));
    expect([busy.namespace, busy.errorName, busy.code, busy.attributes]).toEqual([
      'pkg/messageprocessors',
      'formatter_busy',
      8,
      { application_id: 'flood', reason: 'at most 4 calls of one application may wait' },
    ]);
    // Another application takes the second worker and fills the total queue (4 + 4 waiting).
    const second = Array.from({ length: 5 }, () => pool.run('flood-2', call(SCRIPTS.loop)).catch(() => undefined));
    const full = await errorOf(pool.run('third', call(SCRIPTS.echo)));
    expect(full.attributes).toEqual({ application_id: 'third', reason: 'at most 8 calls may wait' });
    await Promise.all([running, ...waiting, ...second]);
    expect(await pool.run('third', call(SCRIPTS.echo, { ok: true }))).toEqual({ data: { ok: true } });
  });

  it('suspends an application whose runs met a limit FORMATTER_APP_RUNAWAYS_PER_MIN times in a minute (formatter_suspended, 429), not the others', async () => {
    const budgeted = testFormatterPool({ workers: 2, applicationRunawaysPerMinute: 2 });
    try {
      for (let i = 0; i < 2; i++) expect((await errorOf(budgeted.run('abuser', call(SCRIPTS.loop)))).errorName).toBe('script_timeout');
      // Script errors of its own do not count: only runs stopped at a limit.
      expect((await errorOf(budgeted.run('careless', call('function f() { throw new Error("no"); }')))).errorName).toBe('runtime');
      const started = Date.now();
      const suspended = await errorOf(budgeted.run('abuser', call(SCRIPTS.echo)));
      expect([suspended.namespace, suspended.errorName, suspended.code, suspended.attributes]).toEqual([
        'pkg/messageprocessors',
        'formatter_suspended',
        8,
        { application_id: 'abuser', seconds: expect.any(Number), runaways: 2 },
      ]);
      expect(Date.now() - started).toBeLessThan(100);
      expect(await budgeted.run('other', call(SCRIPTS.echo, { n: 3 }))).toEqual({ data: { n: 3 } });
      expect(await budgeted.run('careless', call(SCRIPTS.echo, { n: 4 }))).toEqual({ data: { n: 4 } });
    } finally {
      await budgeted.close();
    }
  });

  // The pool gives the run 10 s (overflowing QuickJS's stack and starting a new worker took more than Jest's default 5 s on a busy CI machine): the test waits longer than that.
  it("fails a run that overflows the thread's stack inside QuickJS with script_stack, and replaces that worker", async () => {
    const patient = testFormatterPool({ workers: 1, timeoutMs: 10_000 });
    try {
      expect((await errorOf(patient.run('abuser', call(SCRIPTS.hostStack)))).errorName).toBe('script_stack');
      expect(await patient.run('other', call(SCRIPTS.echo, { n: 2 }))).toEqual({ data: { n: 2 } });
    } finally {
      await patient.close();
    }
  }, 30_000);

  it('fails waiting calls with script_interrupt when it closes', async () => {
    const closing = testFormatterPool({ workers: 1 });
    const running = errorOf(closing.run('app', call(SCRIPTS.loop)));
    const waiting = errorOf(closing.run('other', call(SCRIPTS.echo)));
    await new Promise((r) => setTimeout(r, 20));
    await closing.close();
    expect((await waiting).errorName).toBe('script_interrupt');
    expect((await running).errorName).toBe('script_interrupt');
    expect((await errorOf(closing.run('app', call(SCRIPTS.echo)))).errorName).toBe('script_interrupt');
  });
});
