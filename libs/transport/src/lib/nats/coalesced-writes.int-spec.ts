import { connect, type NatsConnection } from 'nats';
import { TEST_NATS_URL, uniqueSuffix } from '@lorawan/testing';
import { coalesceWrites, DEFERRED_WRITE_MS, publishDeferrable } from './coalesced-writes';

/** Socket writes of a connection (nats.js's transport `send`, one per write). */
function countWrites(nc: NatsConnection): () => number {
  const transport = (nc as unknown as { protocol: { transport: { send(frame: Uint8Array): void } } }).protocol.transport;
  const send = transport.send.bind(transport);
  let writes = 0;
  transport.send = (frame: Uint8Array) => {
    writes++;
    send(frame);
  };
  return () => writes;
}

describe('coalesceWrites (real NATS)', () => {
  const subject = `coalesce-${uniqueSuffix()}`;
  let plain: NatsConnection;
  let coalesced: NatsConnection;
  let receiver: NatsConnection;

  beforeAll(async () => {
    [plain, coalesced, receiver] = await Promise.all([1, 2, 3].map(() => connect({ servers: TEST_NATS_URL })));
    expect(coalesceWrites(coalesced)).toBe(true);
    receiver.subscribe(`${subject}.echo`, { callback: (_err, msg) => msg.respond(msg.data) });
    await receiver.flush();
  });
  afterAll(async () => {
    await Promise.all([plain, coalesced, receiver].map((nc) => nc?.close()));
  });

  /** Publishes `count` messages, one per microtask checkpoint (as handlers do between awaits), and receives them. */
  async function publishAcrossAwaits(nc: NatsConnection, count: number, tag: string): Promise<{ writes: number; received: string[] }> {
    const received: string[] = [];
    const sub = receiver.subscribe(`${subject}.${tag}`, { max: count, callback: (_err, msg) => received.push(Buffer.from(msg.data).toString()) });
    await receiver.flush();
    const writes = countWrites(nc);
    for (let i = 0; i < count; i++) {
      nc.publish(`${subject}.${tag}`, Buffer.from(String(i)));
      await Promise.resolve();
    }
    await nc.flush();
    await sub.closed;
    return { writes: writes(), received };
  }

  it('writes what one turn of the event loop published in one write, in order (nats.js alone writes once per await)', async () => {
    const alone = await publishAcrossAwaits(plain, 20, 'plain');
    const together = await publishAcrossAwaits(coalesced, 20, 'coalesced');
    const expected = Array.from({ length: 20 }, (_, i) => String(i));
    expect(alone.received).toEqual(expected);
    expect(together.received).toEqual(expected);
    // The plain connection: 20 publishes and the PING of flush(); the coalesced one: the publishes and the PING together.
    expect(alone.writes).toBeGreaterThanOrEqual(20);
    expect(together.writes).toBeLessThanOrEqual(2);
  });

  it('requests and replies go through; more than the pending limit in one turn is written in chunks, nothing lost', async () => {
    const reply = await coalesced.request(`${subject}.echo`, Buffer.from('ping'), { timeout: 2000 });
    expect(Buffer.from(reply.data).toString()).toBe('ping');
    const received: number[] = [];
    const count = 2000;
    const big = Buffer.alloc(1024, 1);
    const sub = receiver.subscribe(`${subject}.bulk`, { max: count, callback: (_err, msg) => received.push(msg.data.length) });
    await receiver.flush();
    const writes = countWrites(coalesced);
    for (let i = 0; i < count; i++) coalesced.publish(`${subject}.bulk`, big);
    await coalesced.flush();
    await sub.closed;
    expect(received).toHaveLength(count);
    // 2 MB at nats.js's 32 KB pending limit: written as it fills, not all at the end.
    expect(writes()).toBeGreaterThan(10);
  });

  it('writes deferrable publishes of several turns together, or with the next other write, in order', async () => {
    const received: string[] = [];
    const sub = receiver.subscribe(`${subject}.deferred`, { max: 7, callback: (_err, msg) => received.push(Buffer.from(msg.data).toString()) });
    await receiver.flush();
    const writes = countWrites(coalesced);
    // The deferral window is a timer: faked, so that the turns below take no time on a loaded machine
    // (real ones took more than DEFERRED_WRITE_MS there). Turns (setImmediate) stay real.
    jest.useFakeTimers({
      doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'queueMicrotask', 'setInterval', 'clearInterval', 'Date', 'hrtime', 'performance'],
    });
    try {
      for (let i = 0; i < 5; i++) {
        publishDeferrable(coalesced, `${subject}.deferred`, Buffer.from(String(i)));
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(writes()).toBe(0);
      // Another publish takes the deferred ones along, before it.
      coalesced.publish(`${subject}.deferred`, Buffer.from('5'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(writes()).toBe(1);
      // Alone, a deferrable publish goes out DEFERRED_WRITE_MS later, not before.
      publishDeferrable(coalesced, `${subject}.deferred`, Buffer.from('6'));
      await new Promise((resolve) => setImmediate(resolve));
      jest.advanceTimersByTime(DEFERRED_WRITE_MS - 1);
      expect(writes()).toBe(1);
      jest.advanceTimersByTime(1);
      expect(writes()).toBe(2);
    } finally {
      jest.useRealTimers();
    }
    await sub.closed;
    expect(received).toEqual(['0', '1', '2', '3', '4', '5', '6']);
  });

  it('publishes at once on a connection that is not coalesced', async () => {
    const received: string[] = [];
    const sub = receiver.subscribe(`${subject}.plain-deferred`, { max: 1, callback: (_err, msg) => received.push(Buffer.from(msg.data).toString()) });
    await receiver.flush();
    publishDeferrable(plain, `${subject}.plain-deferred`, Buffer.from('x'));
    await sub.closed;
    expect(received).toEqual(['x']);
  });
});
