import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import { type EventJson, IS_EVENTS, splitEventBatch } from '@lorawan/api';
import { TEST_NATS_URL, uniqueSuffix } from '@lorawan/testing';
import { connectMessaging, decode, type Messaging, PUBSUB } from '@lorawan/transport';
import { EventPublisher } from './event-publisher';

@Controller()
class PublishingController {
  constructor(private readonly events: EventPublisher) {}

  @MessagePattern('rpc.is.Test.Publish')
  publish(@Payload() data: { body: { count: number } }) {
    for (let i = 0; i < data.body.count; i++)
      this.events.publish(IS_EVENTS.application.update, { application_ids: { application_id: 'app1' } }, { data: [`field${i}`] });
    return { published: data.body.count };
  }
}

/** EventPublisher over real NATS: batches, and a call's events published before its answer. */
describe('EventPublisher over NATS', () => {
  const prefix = `t${uniqueSuffix()}`;
  let server: Messaging;
  let client: Messaging;
  let app: INestMicroservice;

  beforeAll(async () => {
    const settings = { rpcTimeoutMs: 2000, shutdownGraceMs: 1000, natsUrl: TEST_NATS_URL, natsSubjectPrefix: prefix };
    server = await connectMessaging(settings, 'server');
    client = await connectMessaging(settings, 'client');
    @Module({ controllers: [PublishingController], providers: [EventPublisher, { provide: PUBSUB, useValue: server.pubsub }] })
    class PublishingModule {}
    app = await NestFactory.createMicroservice(PublishingModule, { strategy: server.server('is'), logger: false });
    await app.listen();
    await new Promise((resolve) => setTimeout(resolve, 50));
  });
  afterAll(async () => {
    await app.close();
    await server.close();
    await client.close();
  });

  it('publishes the events of a call in one message, before the call’s answer', async () => {
    const messages: EventJson[][] = [];
    const sub = client.pubsub.subscribe('events.>', (payload) => messages.push(splitEventBatch(payload).map((p) => decode<EventJson>(p))));
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const count of [1, 5]) {
      messages.length = 0;
      const answer = await lastValueFrom(client.client().send('rpc.is.Test.Publish', { ctx: { request_id: 'r', correlation_ids: [] }, body: { count } }));
      // The subscription is on the caller's connection: what came before the answer was delivered before it.
      expect(answer).toEqual({ published: count });
      expect(messages.map((events) => events.map((e) => (e.data as { value: string[] }).value[0]))).toEqual([
        Array.from({ length: count }, (_, i) => `field${i}`),
      ]);
    }
    sub.unsubscribe();
  });
});
