import { Writable } from 'node:stream';
import { withLogFields } from './log-context';
import { createRootLogger, errorFields } from './logger';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, sink };
}

describe('root logger', () => {
  it('writes JSON lines with the work’s fields over the process’s, and never keeps one line’s fields for the next', () => {
    const { lines, sink } = capture();
    const root = createRootLogger({ level: 'debug', format: 'json' }, { component: 'stack' }, sink);
    root.info({ context: 'stack', extra: 1 }, 'first');
    withLogFields({ request_id: 'R1', rpc: 'X.Y', component: 'is' }, () => root.child({ context: 'Access' }).info('inside'));
    root.info('last');
    expect(lines.map(({ time: _t, pid: _p, hostname: _h, ...rest }) => rest)).toEqual([
      { level: 'info', component: 'stack', context: 'stack', extra: 1, msg: 'first' },
      { level: 'info', component: 'is', request_id: 'R1', rpc: 'X.Y', context: 'Access', msg: 'inside' },
      { level: 'info', component: 'stack', msg: 'last' },
    ]);
  });

  it('logs an error as its class, message, code, stack and cause only (never a statement’s parameters)', () => {
    const { lines, sink } = capture();
    const root = createRootLogger({ level: 'info', format: 'json' }, {}, sink);
    const driverError = Object.assign(new Error('Duplicate entry'), { code: 'ER_DUP_ENTRY', errno: 1062, sql: 'INSERT … 00112233445566778899AABBCCDDEEFF' });
    const err = Object.assign(new Error('Duplicate entry'), { parameters: ['00112233445566778899AABBCCDDEEFF'], driverError, code: 'ER_DUP_ENTRY' });
    root.error({ err }, 'failed');
    expect(JSON.stringify(lines)).not.toContain('00112233445566778899AABBCCDDEEFF');
    expect(lines[0].err).toMatchObject({ type: 'Error', message: 'Duplicate entry', code: 'ER_DUP_ENTRY', cause: { code: 'ER_DUP_ENTRY', errno: 1062 } });
    expect(errorFields('plain')).toBe('plain');
  });

  it('redacts credentials should an object holding them be logged', () => {
    const { lines, sink } = capture();
    createRootLogger({ level: 'info', format: 'json' }, {}, sink).info({ headers: { authorization: 'Bearer NNSXS.SECRET' }, api_key: 'NNSXS.SECRET' }, 'oops');
    expect(JSON.stringify(lines)).not.toContain('NNSXS.SECRET');
  });
});
