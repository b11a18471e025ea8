import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import { TEST_NATS_URL, uniqueSuffix } from '@lorawan/testing';
import { connectMessaging, inProcessMessaging, type Messaging, type MessagingSettings } from './messaging';
import { InProcessBroker } from './in-process/in-process-broker';
import { RpcTransportError } from './rpc/rpc-packet';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a replica of the test component records and how it answers. */
class Replica {
  served = 0;
  release?: () => void;
  constructor(readonly name: string) {}
}

function testModule(replica: Replica) {
  @Controller()
  class TestController {
    @MessagePattern('rpc.is.Test.Echo')
    echo(@Payload() data: { body: unknown }) {
      replica.served++;
      return { replica: replica.name, body: data.body, at: new Date(0) };
    }

    @MessagePattern('rpc.is.Test.Hold')
    async hold(@Payload() data: { body: { ms: number } }) {
      replica.served++;
      await new Promise<void>((resolve) => {
        replica.release = resolve;
        setTimeout(resolve, data.body.ms);
      });
      return { replica: replica.name };
    }

    @MessagePattern('rpc.is.Test.Big')
    big(@Payload() data: { body: { bytes: number } }) {
      return { blob: 'x'.repeat(data.body.bytes) };
    }

    @MessagePattern('rpc.is.Test.Nothing')
    nothing() {
      return undefined;
    }
  }
  @Module({ controllers: [TestController] })
  class TestModule {}
  return TestModule;
}

interface Bed {
  messagings: Messaging[];
  replicas: Replica[];
  apps: INestMicroservice[];
  client: Messaging;
  close(): Promise<void>;
}

const SETTINGS: MessagingSettings = { rpcTimeoutMs: 1000, shutdownGraceMs: 3000 };

async function bed(mode: 'nats' | 'in-process', replicaCount: number, settings: Partial<MessagingSettings> = {}): Promise<Bed> {
  const prefix = `t${uniqueSuffix()}`;
  const broker = new InProcessBroker();
  const open = async (name: string) =>
    mode === 'nats'
      ? connectMessaging({ ...SETTINGS, ...settings, natsUrl: TEST_NATS_URL, natsSubjectPrefix: prefix }, name)
      : inProcessMessaging(broker, { ...SETTINGS, ...settings });
  const messagings: Messaging[] = [];
  const replicas: Replica[] = [];
  const apps: INestMicroservice[] = [];
  for (let i = 0; i < replicaCount; i++) {
    const messaging = await open(`replica-${i}`);
    const replica = new Replica(`r${i}`);
    const app = await NestFactory.createMicroservice(testModule(replica), { strategy: messaging.server('is'), logger: false });
    await app.listen();
    messagings.push(messaging);
    replicas.push(replica);
    apps.push(app);
  }
  const client = await open('client');
  await sleep(50); // subscriptions reach the broker
  return {
    messagings,
    replicas,
    apps,
    client,
    close: async () => {
      for (const app of apps) await app.close();
      for (const m of [...messagings, client]) await m.close();
    },
  };
}

async function send(messaging: Messaging, pattern: string, body: unknown): Promise<unknown> {
  return lastValueFrom(messaging.client().send(pattern, { ctx: { request_id: 'r', correlation_ids: [] }, body }), { defaultValue: undefined });
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

/** The same behaviour from both transports, with @nestjs/microservices on each side: the business code cannot tell them apart. */
describe.each(['nats', 'in-process'] as const)('%s messaging', (mode) => {
  describe('request/reply', () => {
    let b: Bed;
    beforeAll(async () => {
      b = await bed(mode, 2);
    });
    afterAll(async () => b.close());

    it('answers a @MessagePattern handler’s result, through JSON both ways', async () => {
      expect(await send(b.client, 'rpc.is.Test.Echo', { a: [1, 'x'] })).toMatchObject({ body: { a: [1, 'x'] }, at: '1970-01-01T00:00:00.000Z' });
    });

    it('answers `undefined` results with nothing (the caller gets its default)', async () => {
      expect(await send(b.client, 'rpc.is.Test.Nothing', {})).toBeUndefined();
    });

    it('spreads requests over the replicas of the queue group, each request to exactly one', async () => {
      const before = b.replicas.map((r) => r.served);
      const answers = (await Promise.all(Array.from({ length: 200 }, () => send(b.client, 'rpc.is.Test.Echo', {})))) as Array<{ replica: string }>;
      const served = b.replicas.map((r, i) => r.served - before[i]);
      expect(served[0] + served[1]).toBe(200);
      expect(Math.min(...served)).toBeGreaterThan(20);
      expect(answers.filter((a) => a.replica === 'r0')).toHaveLength(served[0]);
    });

    it('fails at once with `unavailable` when nobody serves the subject (no hang until the timeout)', async () => {
      const started = Date.now();
      const err = await failure(send(b.client, 'rpc.ns.Test.Nobody', {}));
      expect(err).toBeInstanceOf(RpcTransportError);
      expect((err as RpcTransportError).kind).toBe('unavailable');
      expect(Date.now() - started).toBeLessThan(500);
    });

    it('times out with `timeout` when the handler does not answer in time', async () => {
      const err = await failure(send(b.client, 'rpc.is.Test.Hold', { ms: 1500 }));
      expect((err as RpcTransportError).kind).toBe('timeout');
    });

    it('refuses a request larger than the transport carries with `too_large`, before sending it', async () => {
      const err = await failure(send(b.client, 'rpc.is.Test.Echo', { blob: 'x'.repeat(b.client.maxPayload) }));
      expect((err as RpcTransportError).kind).toBe('too_large');
    });

    it('answers a reply too large for the transport with an error reply, and keeps serving', async () => {
      const err = await failure(send(b.client, 'rpc.is.Test.Big', { bytes: b.client.maxPayload + 10 }));
      expect(err).toMatchObject({ namespace: 'pkg/rpc', name: 'response_too_large', code: 8 });
      expect(await send(b.client, 'rpc.is.Test.Echo', 'still')).toMatchObject({ body: 'still' });
    });
  });

  describe('graceful close', () => {
    it('finishes the requests in flight, while new requests go to the other replica', async () => {
      const b = await bed(mode, 2);
      try {
        const held = Array.from({ length: 10 }, () => send(b.client, 'rpc.is.Test.Hold', { ms: 400 }));
        await sleep(100);
        const closing = b.apps[0].close();
        await sleep(50);
        const after = await Promise.all(Array.from({ length: 20 }, () => send(b.client, 'rpc.is.Test.Echo', {})));
        expect((after as Array<{ replica: string }>).every((a) => a.replica === 'r1')).toBe(true);
        const results = (await Promise.all(held)) as Array<{ replica: string }>;
        expect(results.map((r) => r.replica).sort()).toEqual(expect.arrayContaining(['r0', 'r1']));
        await closing;
        b.apps.splice(0, 1);
      } finally {
        await b.close();
      }
    });

    it('waits no longer than the grace period for a request that does not finish', async () => {
      const b = await bed(mode, 1, { shutdownGraceMs: 200, rpcTimeoutMs: 5000 });
      try {
        const held = send(b.client, 'rpc.is.Test.Hold', { ms: 3000 }).catch(() => undefined);
        await sleep(100);
        const started = Date.now();
        await b.apps[0].close();
        expect(Date.now() - started).toBeLessThan(1000);
        b.apps.splice(0, 1);
        b.replicas[0].release?.();
        await held;
      } finally {
        await b.close();
      }
    });
  });

  describe('publish/subscribe', () => {
    let m: Messaging;
    let other: Messaging;
    beforeEach(async () => {
      const prefix = `t${uniqueSuffix()}`;
      const broker = new InProcessBroker();
      const open = (name: string) =>
        mode === 'nats'
          ? connectMessaging({ ...SETTINGS, natsUrl: TEST_NATS_URL, natsSubjectPrefix: prefix }, name)
          : Promise.resolve(inProcessMessaging(broker, SETTINGS));
      m = await open('a');
      other = await open('b');
    });
    afterEach(async () => {
      await m.close();
      await other.close();
    });

    it('broadcasts a published message to every subscriber (of every process), none after unsubscribe', async () => {
      const got: string[] = [];
      const a = m.pubsub.subscribe('access.invalidate', (p) => got.push(`a:${text(p)}`));
      other.pubsub.subscribe('access.invalidate', (p) => got.push(`b:${text(p)}`));
      await sleep(50);
      m.pubsub.publish('access.invalidate', bytes('k1'));
      await sleep(100);
      expect(got.sort()).toEqual(['a:k1', 'b:k1']);
      a.unsubscribe();
      await sleep(50);
      other.pubsub.publish('access.invalidate', bytes('k2'));
      await sleep(100);
      expect(got.sort()).toEqual(['a:k1', 'b:k1', 'b:k2']);
    });

    it('delivers to wildcard subscribers as NATS does (* one token, > the rest), with the subject', async () => {
      const got: string[] = [];
      m.pubsub.subscribe('events.>', (p, subject) => got.push(`all:${text(p)}:${subject}`));
      m.pubsub.subscribe('events.application.*', (p) => got.push(`app:${text(p)}`));
      await sleep(50);
      other.pubsub.publish('events.application.app1', bytes('1'));
      other.pubsub.publish('events.gateway.gw1', bytes('2'));
      other.pubsub.publish('events', bytes('3'));
      other.pubsub.publish('events.application.app1.extra', bytes('4'));
      await sleep(100);
      expect(got.sort()).toEqual(['all:1:events.application.app1', 'all:2:events.gateway.gw1', 'all:4:events.application.app1.extra', 'app:1']);
    });

    it('reports health', async () => {
      expect(await m.pubsub.healthy()).toBe(true);
    });
  });
});

describe('NATS subject prefixes isolate stacks sharing one server', () => {
  it('a request under one prefix never reaches a server under another', async () => {
    const a = await bed('nats', 1);
    const other = await connectMessaging({ ...SETTINGS, natsUrl: TEST_NATS_URL, natsSubjectPrefix: `t${uniqueSuffix()}` }, 'other');
    try {
      const err = await failure(send(other, 'rpc.is.Test.Echo', {}));
      expect((err as RpcTransportError).kind).toBe('unavailable');
      expect(await send(a.client, 'rpc.is.Test.Echo', 1)).toMatchObject({ body: 1 });
    } finally {
      await other.close();
      await a.close();
    }
  });
});
