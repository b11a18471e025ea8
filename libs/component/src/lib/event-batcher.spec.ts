import { splitEventBatch } from '@lorawan/api';
import { EventBatcher, type EventBatcherOptions } from './event-batcher';

interface Sent {
  subject: string;
  events: string[];
}

function setup(options: Partial<EventBatcherOptions> = {}, refuse?: (payload: Uint8Array) => boolean) {
  const sent: Sent[] = [];
  const failed: Array<[string, string]> = [];
  const batcher = new EventBatcher(
    (subject, payload) => {
      if (refuse?.(payload)) throw new Error('refused');
      sent.push({ subject, events: splitEventBatch(payload).map((p) => Buffer.from(p).toString()) });
    },
    (name, err) => failed.push([name, err.message]),
    { windowMs: 5, ...options },
  );
  const add = (subject: string, text: string) => batcher.add(subject, text, Buffer.from(text));
  return { sent, failed, batcher, add };
}

describe('EventBatcher', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('sends the events of one window as one message, in order, once the first has waited windowMs', () => {
    const { sent, add } = setup();
    add('events.application.app1', 'a');
    jest.advanceTimersByTime(3);
    add('events.application.app1', 'b');
    add('events.application.app1', 'c');
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([{ subject: 'events.application.app1', events: ['a', 'b', 'c'] }]);
    add('events.application.app1', 'd');
    jest.advanceTimersByTime(5);
    expect(sent).toEqual([
      { subject: 'events.application.app1', events: ['a', 'b', 'c'] },
      { subject: 'events.application.app1', events: ['d'] },
    ]);
  });

  it('sends a single event as its JSON alone (what an older consumer reads)', () => {
    const sent: Uint8Array[] = [];
    const batcher = new EventBatcher((_subject, payload) => sent.push(payload), jest.fn(), { windowMs: 5 });
    batcher.add('events.gateway.gw-1', 'x', Buffer.from('{"name":"x"}'));
    jest.advanceTimersByTime(5);
    expect(sent.map((p) => Buffer.from(p).toString())).toEqual(['{"name":"x"}']);
  });

  it('batches entities of one kind under `events.<kind>._`, and sends the batch first when another kind comes (order kept)', () => {
    const { sent, add } = setup();
    add('events.gateway.gw-1', 'g1');
    add('events.gateway.gw-2', 'g2');
    add('events.application.app1', 'a1');
    add('events.gateway.gw-1', 'g3');
    jest.advanceTimersByTime(5);
    expect(sent).toEqual([
      { subject: 'events.gateway._', events: ['g1', 'g2'] },
      { subject: 'events.application.app1', events: ['a1'] },
      { subject: 'events.gateway.gw-1', events: ['g3'] },
    ]);
  });

  it('starts a new message at maxEvents and before maxBytes would be exceeded', () => {
    const { sent, add } = setup({ maxEvents: 3, maxBytes: 10 });
    for (const e of ['1', '2', '3', '4']) add('events.user.u', e);
    expect(sent).toEqual([{ subject: 'events.user.u', events: ['1', '2', '3'] }]);
    add('events.user.u', '55555'); // 1 + 5 bytes
    add('events.user.u', '6666'); // 10 bytes: fits
    add('events.user.u', '7'); // 11: a new message
    jest.advanceTimersByTime(5);
    expect(sent).toEqual([
      { subject: 'events.user.u', events: ['1', '2', '3'] },
      { subject: 'events.user.u', events: ['4', '55555', '6666'] },
      { subject: 'events.user.u', events: ['7'] },
    ]);
  });

  it('sends an event larger than maxBytes alone, at once, after what waited', () => {
    const { sent, add } = setup({ maxBytes: 8 });
    add('events.user.u', 'small');
    add('events.user.u', 'much-too-large');
    expect(sent).toEqual([
      { subject: 'events.user.u', events: ['small'] },
      { subject: 'events.user.u', events: ['much-too-large'] },
    ]);
    add('events.user.u', 'next');
    jest.advanceTimersByTime(5);
    expect(sent.at(-1)).toEqual({ subject: 'events.user.u', events: ['next'] });
  });

  it('flush sends what waits at once and stops its timer', () => {
    const { sent, batcher, add } = setup();
    add('events.user.u', 'a');
    batcher.flush();
    expect(sent).toEqual([{ subject: 'events.user.u', events: ['a'] }]);
    expect(jest.getTimerCount()).toBe(0);
    batcher.flush();
    expect(sent).toHaveLength(1);
  });

  it('sends the events of a refused batch one by one on their own subjects, and reports each refused event by name', () => {
    // Refuses messages of several events, and the event named "bad".
    const { sent, failed, add } = setup({}, (payload) => payload.includes(0x0a) || Buffer.from(payload).toString() === 'bad');
    add('events.gateway.gw-1', 'g1');
    add('events.gateway.gw-2', 'bad');
    add('events.gateway.gw-3', 'g3');
    jest.advanceTimersByTime(5);
    expect(sent).toEqual([
      { subject: 'events.gateway.gw-1', events: ['g1'] },
      { subject: 'events.gateway.gw-3', events: ['g3'] },
    ]);
    expect(failed).toEqual([['bad', 'refused']]);
  });

  it('sends what waits before the next reply, asking for one hook at a time', () => {
    const hooks: Array<() => void> = [];
    const { sent, add } = setup({ beforeNextReply: (hook) => hooks.push(hook) });
    add('events.user.u', 'a');
    add('events.user.u', 'b');
    expect(hooks).toHaveLength(1);
    hooks.shift()?.();
    expect(sent).toEqual([{ subject: 'events.user.u', events: ['a', 'b'] }]);
    expect(jest.getTimerCount()).toBe(0);
    // A batch sent by its timer leaves its hook waiting: the next batch needs no other.
    add('events.user.u', 'c');
    jest.advanceTimersByTime(5);
    add('events.user.u', 'd');
    expect(hooks).toHaveLength(1);
    hooks.shift()?.();
    expect(sent.map((m) => m.events)).toEqual([['a', 'b'], ['c'], ['d']]);
    hooks.length = 0;
    add('events.user.u', 'e');
    expect(hooks).toHaveLength(1);
  });
});
