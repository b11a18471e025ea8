import { eventBatchSubject, splitEventBatch } from './event-batch';

const bytes = (text: string) => new TextEncoder().encode(text);
const texts = (parts: Uint8Array[]) => parts.map((p) => new TextDecoder().decode(p));

describe('splitEventBatch', () => {
  it('reads a single event (an older publisher’s message) as a batch of one, the same bytes', () => {
    const payload = bytes('{"name":"a"}');
    const parts = splitEventBatch(payload);
    expect(parts).toHaveLength(1);
    expect(parts[0]).toBe(payload);
  });

  it('returns the events of a batch in order, as views of the payload, skipping empty lines', () => {
    const payload = bytes('{"name":"a"}\n{"name":"b","data":{"text":"x\\ny"}}\n\n{"name":"c"}\n');
    const parts = splitEventBatch(payload);
    expect(texts(parts)).toEqual(['{"name":"a"}', '{"name":"b","data":{"text":"x\\ny"}}', '{"name":"c"}']);
    expect(parts.every((p) => p.buffer === payload.buffer)).toBe(true);
  });

  it('returns nothing for an empty message', () => {
    expect(splitEventBatch(new Uint8Array(0))).toEqual([]);
    expect(splitEventBatch(bytes('\n'))).toEqual([]);
  });
});

describe('eventBatchSubject', () => {
  it('keeps the subject when every event has it', () => {
    expect(eventBatchSubject('events.application.app1', 'events.application.app1')).toBe('events.application.app1');
    expect(eventBatchSubject('events.none', 'events.none')).toBe('events.none');
  });

  it('names the kind only (`_`) for entities of one kind, and nothing for another kind', () => {
    expect(eventBatchSubject('events.gateway.gw-1', 'events.gateway.gw-2')).toBe('events.gateway._');
    expect(eventBatchSubject('events.gateway._', 'events.gateway.gw-3')).toBe('events.gateway._');
    expect(eventBatchSubject('events.gateway.gw-1', 'events.application.gw-1')).toBeUndefined();
    expect(eventBatchSubject('events.none', 'events.gateway.gw-1')).toBeUndefined();
    expect(eventBatchSubject('events.gateway.gw-1', 'events.none')).toBeUndefined();
  });
});
