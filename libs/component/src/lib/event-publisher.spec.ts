import { defineEvent, type EntityIdentifiersJson, type EventDefinition, type EventJson, messageData, Right, VALUE_TYPE, valueData } from '@lorawan/api';
import { splitEventBatch } from '@lorawan/api';
import { DEFERRED_WRITE_MS, InProcessBroker, type PubSub } from '@lorawan/transport';
import { encodeEvent, EventPublisher } from './event-publisher';

const message = defineEvent('test.publisher.message', 'message event', {
  visibility: [Right.RIGHT_GATEWAY_TRAFFIC_READ],
  dataType: 'ttn.lorawan.v3.GatewayUplinkMessage',
});
const value = defineEvent('test.publisher.value', 'value event', { visibility: [Right.RIGHT_APPLICATION_DEVICES_READ], dataType: VALUE_TYPE });
const bare = defineEvent('test.publisher.bare', 'event without data', { visibility: [Right.RIGHT_GATEWAY_LINK, Right.RIGHT_GATEWAY_STATUS_READ] });

const ids: EntityIdentifiersJson[] = [{ gateway_ids: { gateway_id: 'gw-1', eui: '0102030405060708' } }];

/** The event as EventPublisher built it as an object before it wrote its JSON directly. */
function asObject(definition: EventDefinition, correlationIds: string[], data: unknown, time: string, uniqueId: string): EventJson {
  const event: EventJson = {
    name: definition.name,
    time,
    identifiers: ids,
    correlation_ids: correlationIds,
    origin: '',
    visibility: { rights: definition.visibility },
    unique_id: uniqueId,
  };
  if (definition.dataType && data !== undefined)
    event.data = definition.dataType === VALUE_TYPE ? valueData(data) : messageData(definition.dataType.replace(/^ttn\.lorawan\.v3\./, ''), data as object);
  return event;
}

describe('encodeEvent', () => {
  class WithToJson {
    toJSON() {
      return { replaced: true };
    }
  }
  const cases: Array<[string, EventDefinition, unknown]> = [
    [
      'a message',
      message,
      { message: { raw_payload: 'AQ==', rx_metadata: [{ rssi: -42, snr: undefined, channel_index: 0 }], crc_status: true }, band_id: 'EU_863_870' },
    ],
    ['an empty message', message, {}],
    ['a message with its own @type', message, { '@type': 'other', a: 1 }],
    ['a message with toJSON', message, new WithToJson()],
    ['a message with escapes', message, { text: 'quote " backslash \\ newline \n é \u2028' }],
    ['a value (string)', value, 'cluster'],
    ['a value (paths)', value, ['name', 'ids.dev_eui']],
    ['a value (null)', value, null],
    ['an undefined value', value, undefined],
    ['no data type', bare, { ignored: true }],
    ['no data', message, undefined],
  ];

  it.each(cases)('writes %s as JSON.stringify writes the event object', (_, definition, data) => {
    const text = encodeEvent(definition, ids, ['gs:uplink:01H', 'rpc:x'], data);
    const parsed = JSON.parse(text) as EventJson;
    expect(parsed.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(parsed.unique_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const expected = JSON.stringify({ ...asObject(definition, ['gs:uplink:01H', 'rpc:x'], data, parsed.time, parsed.unique_id), origin: parsed.origin });
    expect(text).toBe(expected);
  });
});

describe('EventPublisher', () => {
  it('publishes the JSON on the subject of the first identifier', () => {
    const published: Array<[string, string]> = [];
    const pubsub = {
      publish: (subject: string, payload: Uint8Array, options?: { deferrable?: boolean }) => {
        expect(options).toEqual({ deferrable: true });
        published.push([subject, Buffer.from(payload).toString()]);
      },
    } as unknown as PubSub;
    new EventPublisher(pubsub).publish(value, ids[0], { ctx: { correlation_ids: ['c1'] }, data: ['name'] });
    expect(published).toHaveLength(1);
    expect(published[0][0]).toBe('events.gateway.gw-1');
    expect(JSON.parse(published[0][1])).toMatchObject({
      name: 'test.publisher.value',
      identifiers: ids,
      correlation_ids: ['c1'],
      data: { '@type': 'type.googleapis.com/google.protobuf.Value', value: ['name'] },
    });
  });

  it('drops an event it cannot encode without throwing', () => {
    const pubsub = { publish: jest.fn() } as unknown as PubSub;
    expect(() => new EventPublisher(pubsub).publish(value, ids, { data: { big: 1n } })).not.toThrow();
    expect(pubsub.publish).not.toHaveBeenCalled();
  });

  describe('over NATS', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    function natsPubSub() {
      const published: Array<{ subject: string; events: EventJson[]; options?: unknown }> = [];
      const pubsub = {
        kind: 'nats',
        publish: (subject: string, payload: Uint8Array, options?: unknown) =>
          published.push({ subject, events: splitEventBatch(payload).map((p) => JSON.parse(Buffer.from(p).toString()) as EventJson), options }),
      } as unknown as PubSub;
      return { pubsub, published };
    }

    it('publishes the events of DEFERRED_WRITE_MS as one message, in order, the same JSON as one by one', () => {
      const { pubsub, published } = natsPubSub();
      const publisher = new EventPublisher(pubsub);
      publisher.publish(value, ids, { ctx: { correlation_ids: ['c1'] }, data: ['a'] });
      publisher.publish(bare, ids);
      publisher.publish(value, [{ gateway_ids: { gateway_id: 'gw-2' } }], { data: ['b'] });
      jest.advanceTimersByTime(DEFERRED_WRITE_MS - 1);
      expect(published).toEqual([]);
      jest.advanceTimersByTime(1);
      expect(published).toHaveLength(1);
      expect(published[0].subject).toBe('events.gateway._');
      expect(published[0].options).toBeUndefined();
      const [first, second, third] = published[0].events;
      expect(first).toEqual({ ...asObject(value, ['c1'], ['a'], first.time, first.unique_id), origin: first.origin });
      expect(second).toEqual({ ...asObject(bare, [], undefined, second.time, second.unique_id), origin: second.origin });
      expect(third).toMatchObject({ name: 'test.publisher.value', identifiers: [{ gateway_ids: { gateway_id: 'gw-2' } }], data: { value: ['b'] } });
    });

    it('publishes what waits when the application shuts down, and later events at once', () => {
      const { pubsub, published } = natsPubSub();
      const publisher = new EventPublisher(pubsub);
      publisher.publish(bare, ids);
      publisher.onApplicationShutdown();
      expect(published.map((p) => p.events.map((e) => e.name))).toEqual([['test.publisher.bare']]);
      publisher.publish(value, ids, { data: ['x'] });
      expect(published).toHaveLength(2);
      expect(jest.getTimerCount()).toBe(0);
    });

    it('still only logs an event it cannot encode, and publishes the others', () => {
      const { pubsub, published } = natsPubSub();
      const publisher = new EventPublisher(pubsub);
      expect(() => publisher.publish(value, ids, { data: { big: 1n } })).not.toThrow();
      publisher.publish(bare, ids);
      jest.advanceTimersByTime(DEFERRED_WRITE_MS);
      expect(published.map((p) => p.events.map((e) => e.name))).toEqual([['test.publisher.bare']]);
    });
  });

  it('publishes each event at once in process (embedded), as before', async () => {
    const broker = new InProcessBroker();
    const publish = jest.spyOn(broker, 'publish');
    const got: string[] = [];
    broker.subscribe('events.>', (payload) => got.push((JSON.parse(Buffer.from(payload).toString()) as EventJson).name));
    const publisher = new EventPublisher(broker);
    publisher.publish(bare, ids);
    publisher.publish(value, ids, { data: ['x'] });
    expect(publish).toHaveBeenCalledTimes(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(got).toEqual(['test.publisher.bare', 'test.publisher.value']);
  });
});
