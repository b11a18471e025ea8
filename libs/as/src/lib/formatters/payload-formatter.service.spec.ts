import { testFormatterPool } from '../testing/as-test-kit';
import { PayloadFormatter } from './payload-formatter.service';

const JS = 'FORMATTER_JAVASCRIPT';
const applicationId = 'app-1';
const pool = testFormatterPool();
const formatter = new PayloadFormatter(pool);
const up = (bytes: number[], fPort = 1) => ({ applicationId, bytes: Uint8Array.from(bytes), fPort, recvTime: new Date('2024-05-01T10:00:00Z') });
const down = (data: Record<string, unknown>, fPort = 1) => ({ applicationId, data, fPort });
const downBytes = (bytes: number[], fPort: number) => ({ applicationId, bytes: Uint8Array.from(bytes), fPort });

describe('PayloadFormatter', () => {
  afterAll(() => pool.close());

  it('FORMATTER_NONE and absent formatters do nothing', async () => {
    expect(await formatter.decodeUplink(up([1]), 'FORMATTER_NONE', undefined)).toBeUndefined();
    expect(await formatter.encodeDownlink(down({}, 1), undefined, undefined)).toBeUndefined();
  });

  it('runs decodeUplink with bytes, fPort and recvTime', async () => {
    const script = `function decodeUplink(input) { return { data: { sum: input.bytes.reduce(function (a, b) { return a + b; }, 0), port: input.fPort, year: input.recvTime.getUTCFullYear() }, warnings: ['low battery'] }; }`;
    expect(await formatter.decodeUplink(up([1, 2, 3], 7), JS, script)).toEqual({
      data: { sum: 6, port: 7, year: 2024 },
      warnings: ['low battery'],
      errors: [],
    });
  });

  it('runs encodeDownlink and takes its fPort, else the input fPort', async () => {
    const script = `function encodeDownlink(input) { return { bytes: [input.data.led ? 1 : 0, 255], fPort: input.data.port, warnings: ['w'] }; }`;
    expect(await formatter.encodeDownlink(down({ led: true, port: 9 }, 2), JS, script)).toEqual({
      bytes: Uint8Array.from([1, 255]),
      fPort: 9,
      warnings: ['w'],
      errors: [],
    });
    expect((await formatter.encodeDownlink(down({ led: false }, 2), JS, script))?.fPort).toBe(2);
  });

  it('supports the legacy Decoder and Encoder functions', async () => {
    expect((await formatter.decodeUplink(up([5]), JS, 'function Decoder(bytes, port) { return { v: bytes[0] * port }; }'))?.data).toEqual({ v: 5 });
    expect((await formatter.encodeDownlink(down({ v: 3 }, 1), JS, 'function Encoder(obj, port) { return [obj.v]; }'))?.bytes).toEqual(Uint8Array.from([3]));
  });

  it('reports the script errors, syntax errors, exceptions and bad output', async () => {
    const errs = await formatter.decodeUplink(up([1]), JS, `function decodeUplink() { return { errors: ['bad payload'], warnings: ['w'] }; }`);
    expect(errs).toMatchObject({ errors: ['bad payload'], warnings: ['w'] });
    expect(errs?.error?.errorName).toBe('output_errors');
    expect((await formatter.decodeUplink(up([1]), JS, 'function decodeUplink( {'))?.error?.errorName).toBe('runtime');
    const thrown = await formatter.decodeUplink(up([1]), JS, `function decodeUplink() { throw new Error('boom'); }`);
    expect(thrown?.error?.errorName).toBe('runtime');
    expect(thrown?.errors[0]).toContain('boom');
    expect((await formatter.decodeUplink(up([1]), JS, 'var x = 1;'))?.error?.errorName).toBe('entrypoint_not_found');
    expect((await formatter.encodeDownlink(down({}, 1), JS, 'function encodeDownlink() { return { bytes: [256] }; }'))?.error?.errorName).toBe('output');
    expect((await formatter.encodeDownlink(down({}, 1), JS, 'function encodeDownlink() { return 5; }'))?.error?.errorName).toBe('output');
  });

  it('has no host access: no require, process, module, timers or Node globals', async () => {
    const script = `function decodeUplink() { return { data: {
      require: typeof require, process: typeof process, module: typeof module, setTimeout: typeof setTimeout,
      buffer: typeof Buffer, fetch: typeof fetch, keys: Object.getOwnPropertyNames(globalThis).filter(function (k) { return /^(process|require|global|Buffer|module)$/.test(k); }) } }; }`;
    expect((await formatter.decodeUplink(up([]), JS, script))?.data).toEqual({
      require: 'undefined',
      process: 'undefined',
      module: 'undefined',
      setTimeout: 'undefined',
      buffer: 'undefined',
      fetch: 'undefined',
      keys: [],
    });
    const escape = await formatter.decodeUplink(
      up([]),
      JS,
      `function decodeUplink() { return { data: { v: this.constructor.constructor('return typeof process')() } }; }`,
    );
    expect(escape?.data).toEqual({ v: 'undefined' });
  });

  it('interrupts an endless loop at the time limit, and the next call still works', async () => {
    const started = Date.now();
    const looped = await formatter.decodeUplink(up([1]), JS, 'function decodeUplink() { while (true) {} }');
    expect(looped?.error?.errorName).toBe('script_timeout');
    expect(Date.now() - started).toBeLessThan(2000);
    expect((await formatter.decodeUplink(up([1]), JS, 'function decodeUplink(i) { return { data: { ok: i.bytes[0] } }; }'))?.data).toEqual({ ok: 1 });
  });

  it('stops a script at its memory limit', async () => {
    const small = testFormatterPool({ timeoutMs: 5000, memoryLimitBytes: 24 * 1024 * 1024 });
    const sandboxed = new PayloadFormatter(small);
    const bomb = await sandboxed.decodeUplink(
      up([1]),
      JS,
      `function decodeUplink() { var a = []; for (;;) a.push({ x: a.length, y: [1, 2, 3, 4, 5, 6, 7, 8] }); }`,
    );
    expect(bomb?.error?.errorName).toBe('script_memory');
    expect((await sandboxed.decodeUplink(up([2]), JS, 'function decodeUplink(i) { return { data: { ok: i.bytes[0] } }; }'))?.data).toEqual({ ok: 2 });
    await small.close();
  });

  it('keeps state of one call away from the next', async () => {
    const script = 'var n = (typeof n === "number" ? n : 0) + 1; function decodeUplink() { return { data: { n: n } }; }';
    expect((await formatter.decodeUplink(up([]), JS, script))?.data).toEqual({ n: 1 });
    expect((await formatter.decodeUplink(up([]), JS, script))?.data).toEqual({ n: 1 });
  });

  it('decodes CayenneLPP uplinks and encodes CayenneLPP downlinks', async () => {
    expect((await formatter.decodeUplink(up([0x03, 0x67, 0x01, 0x10, 0x05, 0x67, 0x00, 0xff]), 'FORMATTER_CAYENNELPP', undefined))?.data).toEqual({
      temperature_3: 27.2,
      temperature_5: 25.5,
    });
    expect(await formatter.encodeDownlink(down({ value_2: -50.51 }, 3), 'FORMATTER_CAYENNELPP', undefined)).toMatchObject({
      bytes: Uint8Array.from([2, 0xec, 0x45]),
      fPort: 3,
    });
    expect((await formatter.decodeUplink(up([0x01, 0x99]), 'FORMATTER_CAYENNELPP', undefined))?.error?.errorName).toBe('payload');
    expect((await formatter.decodeDownlink(downBytes([2, 0xec, 0x45], 3), 'FORMATTER_CAYENNELPP', undefined))?.data).toEqual({
      value_2: -50.51,
    });
  });

  it("decodes downlinks with a script's decodeDownlink (data and warnings); a failing or missing one is the error; none is undefined", async () => {
    const script =
      'function decodeDownlink(input) { return input.bytes[0] === 9 ? { errors: ["nine"] } : { data: { first: input.bytes[0], port: input.fPort }, warnings: ["w"] }; }';
    expect(await formatter.decodeDownlink(downBytes([7, 8], 4), JS, script)).toEqual({
      data: { first: 7, port: 4 },
      warnings: ['w'],
      errors: [],
    });
    const failed = await formatter.decodeDownlink(downBytes([9], 4), JS, script);
    expect([failed?.data, failed?.error?.errorName, failed?.error?.attributes]).toEqual([undefined, 'output_errors', { errors: 'nine' }]);
    const missing = await formatter.decodeDownlink(downBytes([7], 4), JS, 'function decodeUplink() { return { data: {} }; }');
    expect(missing?.error?.errorName).toBe('entrypoint_not_found');
    expect((await formatter.decodeDownlink(downBytes([7], 4), JS, 'function decodeDownlink() { while (true) {} }'))?.error).toBeDefined();
    expect((await formatter.decodeDownlink(downBytes([0x01, 0x99], 4), 'FORMATTER_CAYENNELPP', undefined))?.error).toBeDefined();
    expect(await formatter.decodeDownlink(downBytes([7], 4), 'FORMATTER_NONE', undefined)).toBeUndefined();
  });

  it('reports unsupported formatters', async () => {
    expect((await formatter.decodeUplink(up([]), 'FORMATTER_REPOSITORY', undefined))?.error?.errorName).toBe('formatter_not_supported');
  });
});
