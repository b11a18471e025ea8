import { TEST_NATS_URL, uniqueSuffix } from '@lorawan/testing';
import { InProcessTransport } from './in-process.transport';
import { NatsTransport } from './nats.transport';
import { type Transport, TransportError } from './transport';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** The same behaviour from both transports: the business code cannot tell them apart. */
describe.each([
  ['NATS', async () => [await NatsTransport.connect(TEST_NATS_URL, 'a', `t${uniqueSuffix()}`)] as const],
  ['in-process', async () => [new InProcessTransport()] as const],
])('%s transport', (_name, open) => {
  let transport: Transport;
  beforeEach(async () => {
    [transport] = await open();
  });
  afterEach(async () => transport.close());

  it('answers a request from a subscriber of the subject', async () => {
    transport.serve('rpc.is.Echo', 'is', async (p) => bytes(`echo:${text(p)}`));
    expect(text(await transport.request('rpc.is.Echo', bytes('hi'), 1000))).toBe('echo:hi');
  });

  it('spreads requests over the members of a queue group, each request to exactly one', async () => {
    const seen = { a: 0, b: 0 };
    transport.serve('rpc.is.Work', 'is', async () => (seen.a++, bytes('a')));
    transport.serve('rpc.is.Work', 'is', async () => (seen.b++, bytes('b')));
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 200; i++) await transport.request('rpc.is.Work', bytes(''), 1000);
    expect(seen.a + seen.b).toBe(200);
    expect(seen.a).toBeGreaterThan(20);
    expect(seen.b).toBeGreaterThan(20);
  });

  it('fails fast with no_responders when nobody serves the subject (no hang)', async () => {
    const started = Date.now();
    await expect(transport.request('rpc.ns.Nobody', bytes(''), 5000)).rejects.toMatchObject({ kind: 'no_responders' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('times out when the responder does not answer in time', async () => {
    transport.serve('rpc.is.Slow', 'is', () => new Promise((r) => setTimeout(() => r(bytes('late')), 1000)));
    await new Promise((r) => setTimeout(r, 50));
    const err = await transport.request('rpc.is.Slow', bytes(''), 100).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('timeout');
  });

  it('stops delivering after unsubscribe', async () => {
    const sub = transport.serve('rpc.is.Gone', 'is', async () => bytes('x'));
    await new Promise((r) => setTimeout(r, 50));
    sub.unsubscribe();
    await new Promise((r) => setTimeout(r, 50));
    await expect(transport.request('rpc.is.Gone', bytes(''), 500)).rejects.toMatchObject({ kind: 'no_responders' });
  });

  it('broadcasts a published message to every subscriber, none after unsubscribe', async () => {
    const got: string[] = [];
    const a = transport.subscribe('access.invalidate', (p) => got.push(`a:${text(p)}`));
    transport.subscribe('access.invalidate', (p) => got.push(`b:${text(p)}`));
    transport.serve('access.invalidate', 'is', async () => bytes('not a request'));
    await new Promise((r) => setTimeout(r, 50));
    transport.publish('access.invalidate', bytes('k1'));
    await new Promise((r) => setTimeout(r, 100));
    expect(got.sort()).toEqual(['a:k1', 'b:k1']);
    a.unsubscribe();
    await new Promise((r) => setTimeout(r, 50));
    transport.publish('access.invalidate', bytes('k2'));
    await new Promise((r) => setTimeout(r, 100));
    expect(got.sort()).toEqual(['a:k1', 'b:k1', 'b:k2']);
  });

  it('delivers to wildcard subscribers as NATS does (* one token, > the rest)', async () => {
    const got: string[] = [];
    transport.subscribe('events.>', (p) => got.push(`all:${text(p)}`));
    transport.subscribe('events.application.*', (p) => got.push(`app:${text(p)}`));
    await new Promise((r) => setTimeout(r, 50));
    transport.publish('events.application.app1', bytes('1'));
    transport.publish('events.gateway.gw1', bytes('2'));
    transport.publish('events', bytes('3'));
    transport.publish('events.application.app1.extra', bytes('4'));
    await new Promise((r) => setTimeout(r, 100));
    expect(got.sort()).toEqual(['all:1', 'all:2', 'all:4', 'app:1']);
  });

  it('tells a wildcard subscriber the subject (without prefix) each message was published on', async () => {
    const got: string[] = [];
    transport.subscribe('stream-control.*', (p, subject) => got.push(`${subject}=${text(p)}`));
    await new Promise((r) => setTimeout(r, 50));
    transport.publish('stream-control.s1', bytes('ping'));
    transport.publish('stream-control.s2', bytes('close'));
    await new Promise((r) => setTimeout(r, 100));
    expect(got.sort()).toEqual(['stream-control.s1=ping', 'stream-control.s2=close']);
  });

  it('reports health', async () => {
    expect(await transport.healthy()).toBe(true);
  });
});

describe('NATS subject prefixes isolate stacks sharing one server', () => {
  it('a request under one prefix never reaches a subscriber under another', async () => {
    const a = await NatsTransport.connect(TEST_NATS_URL, 'a', `t${uniqueSuffix()}`);
    const b = await NatsTransport.connect(TEST_NATS_URL, 'b', `t${uniqueSuffix()}`);
    try {
      b.serve('rpc.is.X', 'is', async () => bytes('b'));
      await new Promise((r) => setTimeout(r, 50));
      await expect(a.request('rpc.is.X', bytes(''), 500)).rejects.toMatchObject({ kind: 'no_responders' });
    } finally {
      await a.close();
      await b.close();
    }
  });
});
