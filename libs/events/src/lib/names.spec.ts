import { eventDefinitions } from '@lorawan/api';
import { StackError } from '@lorawan/errors';
import { resolveNames } from './names';

const DEFINED = [
  'end_device.create',
  'end_device.update',
  'end_device.delete',
  'as.end_device.create',
  'as.end_device.update',
  'application.update',
  'events.stream.start',
];

function error(fn: () => unknown): StackError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StackError) return err;
    throw err;
  }
  throw new Error('no error thrown');
}

describe('resolveNames (the names filter of a stream, TTS NamesFromPatterns)', () => {
  it('selects every name without a filter', () => {
    expect(resolveNames(undefined, DEFINED)).toBeUndefined();
    expect(resolveNames([], DEFINED)).toBeUndefined();
  });

  it('takes exact defined names, sorted and once each', () => {
    expect(resolveNames(['end_device.update', 'application.update', 'end_device.update'], DEFINED)).toEqual(['application.update', 'end_device.update']);
  });

  it('matches /regex/ unanchored against every defined name, together with exact names', () => {
    expect(resolveNames(['/end_device\\.(create|update)/'], DEFINED)).toEqual([
      'as.end_device.create',
      'as.end_device.update',
      'end_device.create',
      'end_device.update',
    ]);
    expect(resolveNames(['/^end_device\\./', 'application.update'], DEFINED)).toEqual([
      'application.update',
      'end_device.create',
      'end_device.delete',
      'end_device.update',
    ]);
  });

  it('refuses an unknown exact name: pkg/events:unknown_event_name with the name', () => {
    const err = error(() => resolveNames(['end_device.create', 'end_device.nope'], DEFINED));
    expect(err.toDetails()).toMatchObject({ namespace: 'pkg/events', name: 'unknown_event_name', code: 3, attributes: { name: 'end_device.nope' } });
  });

  it('refuses a regex that matches no defined name: pkg/events:no_matching_events with the regexp', () => {
    const err = error(() => resolveNames(['/^gs\\./'], DEFINED));
    expect(err.toDetails()).toMatchObject({ namespace: 'pkg/events', name: 'no_matching_events', code: 3, attributes: { regexp: '^gs\\.' } });
  });

  it('refuses an invalid regex: pkg/events:invalid_regexp', () => {
    for (const pattern of ['/(unclosed/', '/a**/', '/[z-a]/']) {
      expect(error(() => resolveNames([pattern], DEFINED)).toDetails()).toMatchObject({ namespace: 'pkg/events', name: 'invalid_regexp', code: 3 });
    }
  });

  it('runs patterns in linear time: a catastrophic pattern answers at once, backreferences (not RE2) are refused', () => {
    const started = Date.now();
    expect(error(() => resolveNames(['/^(.|.)*x$/'], [...DEFINED, 'a'.repeat(40)])).errorName).toBe('no_matching_events');
    expect(Date.now() - started).toBeLessThan(500);
    expect(error(() => resolveNames(['/(end)\\1/'], DEFINED)).errorName).toBe('invalid_regexp');
  });

  it('checks against the registry of every defined event by default', () => {
    expect(resolveNames(['events.stream.start'])).toEqual(['events.stream.start']);
    const all = resolveNames(['/./']) ?? [];
    expect(all).toEqual([...eventDefinitions().keys()].sort());
    expect(all).toEqual(
      expect.arrayContaining(['end_device.update', 'ns.end_device.update', 'js.end_device.update', 'as.end_device.update', 'application.api-key.create']),
    );
  });
});
