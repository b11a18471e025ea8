import { SessionBuffer } from './session-buffer';

const payload = (n: number) => Buffer.from(String(n));

describe('SessionBuffer', () => {
  it('keeps unacknowledged messages in order with their packet identifiers, marked sent for redelivery', () => {
    const buffer = new SessionBuffer({ maxMessages: 10, maxAgeMs: 60_000 });
    const a = buffer.add('t/a', payload(1), 1000).message;
    const b = buffer.add('t/b', payload(2), 1001).message;
    expect([a.packetId, b.packetId]).toEqual([1, 2]);
    a.sent = true;
    expect(buffer.ack(a.packetId)).toBe(true);
    expect(buffer.ack(a.packetId)).toBe(false);
    const { messages, expired } = buffer.pending(2000);
    expect(expired).toBe(0);
    expect(messages.map((m) => [m.topic, m.packetId, m.sent])).toEqual([['t/b', 2, false]]);
  });

  it('drops the oldest beyond its count, and expired ones by age', () => {
    const buffer = new SessionBuffer({ maxMessages: 3, maxAgeMs: 1000 });
    let dropped = 0;
    for (let i = 1; i <= 5; i++) dropped += buffer.add(`t/${i}`, payload(i), i * 100).dropped;
    expect(dropped).toBe(2);
    expect(buffer.pending(500).messages.map((m) => m.topic)).toEqual(['t/3', 't/4', 't/5']);
    // At 1350, t/3 (300) is older than 1000 ms.
    const later = buffer.pending(1350);
    expect([later.expired, later.messages.map((m) => m.topic)]).toEqual([1, ['t/4', 't/5']]);
    expect(buffer.expire(10_000)).toBe(2);
    expect(buffer.size).toBe(0);
  });

  it('never hands out 0 or an identifier still in flight, wrapping after 65535', () => {
    const buffer = new SessionBuffer({ maxMessages: 100, maxAgeMs: 60_000 });
    const first = buffer.add('t', payload(0), 0).message.packetId;
    for (let i = 0; i < 65534; i++) buffer.ack(buffer.add('t', payload(i), 0).message.packetId);
    // The counter is at 65535 now: the next wraps to 1, which `first` still holds, so 2.
    expect(first).toBe(1);
    expect(buffer.add('t', payload(1), 0).message.packetId).toBe(2);
  });
});
