import { eventSubject, type EventJson } from '@lorawan/api';
import { encode, InProcessBroker } from '@lorawan/transport';
import { watchGatewayRegistrations } from './registration-watch';

const event = (name: string, eui?: string): EventJson => ({
  name,
  time: '2026-01-01T00:00:00.000000Z',
  identifiers: [{ gateway_ids: { gateway_id: 'gtw-1', ...(eui ? { eui } : {}) } }],
  correlation_ids: [],
  origin: 'test',
  visibility: { rights: [] },
  unique_id: '01H0000000000000000000000',
});

describe('watchGatewayRegistrations', () => {
  it('names the EUI of every gateway created, updated or restored; ignores other events and garbage', async () => {
    const broker = new InProcessBroker();
    const registered: string[] = [];
    const subscription = watchGatewayRegistrations(broker, (eui) => registered.push(eui));
    for (const e of [
      event('gateway.create', 'AA555A0000000001'),
      event('gateway.update', 'AA555A0000000002'),
      event('gateway.restore', 'AA555A0000000003'),
      event('gateway.delete', 'AA555A0000000004'),
      event('gateway.create'),
    ])
      broker.publish(eventSubject(e), encode(e));
    broker.publish('events.gateway.gtw-1', new TextEncoder().encode('not json'));
    // Passed over without decoding: another event named first; decoded: a registration whose name is not its first field.
    broker.publish('events.gateway.gtw-1', new TextEncoder().encode('{"name":"gs.up.receive","identifiers":[{"gateway_ids":{"eui":"AA555A0000000005"}}]}'));
    const { name, ...rest } = event('gateway.create', 'AA555A0000000006');
    broker.publish('events.gateway.gtw-1', encode({ ...rest, name }));
    await new Promise((r) => setImmediate(r));
    subscription.unsubscribe();
    expect(registered).toEqual(['AA555A0000000001', 'AA555A0000000002', 'AA555A0000000003', 'AA555A0000000006']);
  });

  it('finds registrations anywhere in a message of several events (a batch)', async () => {
    const broker = new InProcessBroker();
    const registered: string[] = [];
    const subscription = watchGatewayRegistrations(broker, (eui) => registered.push(eui));
    const batch = [event('gs.up.receive', 'AA555A0000000010'), event('gateway.update', 'AA555A0000000011'), event('gateway.create', 'AA555A0000000012')];
    broker.publish('events.gateway._', Buffer.from(batch.map((e) => JSON.stringify(e)).join('\n')));
    await new Promise((r) => setImmediate(r));
    subscription.unsubscribe();
    expect(registered).toEqual(['AA555A0000000011', 'AA555A0000000012']);
  });
});
