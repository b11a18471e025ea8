import { defineEvent, type EntityIdentifiersJson, replicaHeartbeatSubject, Right } from '@lorawan/api';
import { encode, InProcessBroker } from '@lorawan/transport';
import { EventWatch } from './event-watch';

const frame = defineEvent('test.watch.frame', 'traffic event of a device', {
  visibility: [Right.RIGHT_APPLICATION_TRAFFIC_READ],
  propagateToParent: true,
  dataType: 'ttn.lorawan.v3.UplinkMessage',
  trafficData: true,
});
const ownOnly = defineEvent('test.watch.own', 'traffic event of a device, not propagated', {
  visibility: [Right.RIGHT_APPLICATION_TRAFFIC_READ],
  dataType: 'ttn.lorawan.v3.UplinkMessage',
  trafficData: true,
});
const error = defineEvent('test.watch.error', 'an error event', {
  visibility: [Right.RIGHT_APPLICATION_TRAFFIC_READ],
  dataType: 'ttn.lorawan.v3.ErrorDetails',
});

const device = (app: string, dev: string): EntityIdentifiersJson[] => [{ device_ids: { device_id: dev, application_ids: { application_id: app } } }];
const gateway: EntityIdentifiersJson[] = [{ gateway_ids: { gateway_id: 'gw-1' } }];

describe('EventWatch', () => {
  let broker: InProcessBroker;
  let now: number;
  const watch = (mode: 'watched' | 'always' = 'watched') => new EventWatch(broker, { mode, replicaTimeoutMs: 4000, now: () => now });
  const beat = (replica: string, heartbeat: unknown) =>
    broker.publish(replicaHeartbeatSubject(replica), heartbeat === undefined ? new Uint8Array(0) : encode(heartbeat));
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  beforeEach(() => {
    broker = new InProcessBroker();
    now = 1_000_000;
  });

  it('writes data until it may have heard every replica, then only what a replica watches', async () => {
    const w = watch();
    expect(w.withData(frame, device('app-1', 'dev-1'))).toBe(true);
    now += 4001;
    expect(w.withData(frame, device('app-1', 'dev-1'))).toBe(false);
    beat('r1', { watch: ['device:app-1.dev-1'] });
    await settle();
    expect(w.withData(frame, device('app-1', 'dev-1'))).toBe(true);
    expect(w.withData(frame, device('app-1', 'dev-2'))).toBe(false);
    expect(w.withData(frame, gateway)).toBe(false);
    w.close();
  });

  it('finds a device event under its application when it propagates, as the replicas index it', async () => {
    const w = watch();
    now += 5000;
    beat('r1', { watch: ['application:app-1', 'gateway:gw-1'] });
    await settle();
    expect(w.withData(frame, device('app-1', 'dev-9'))).toBe(true);
    expect(w.withData(ownOnly, device('app-1', 'dev-9'))).toBe(false);
    expect(w.withData(frame, device('app-2', 'dev-9'))).toBe(false);
    expect(w.withData(frame, gateway)).toBe(true);
    w.close();
  });

  it('always writes the data of events that are not traffic, and everything under `always`', async () => {
    const watched = watch();
    const always = watch('always');
    now += 5000;
    expect(watched.withData(error, device('app-1', 'dev-1'))).toBe(true);
    expect(always.withData(frame, device('app-1', 'dev-1'))).toBe(true);
    watched.close();
    always.close();
  });

  it('takes a replica that lists nothing, says watch_all or cannot be read as watching everything', async () => {
    for (const heartbeat of [undefined, { watch_all: true }, 'not an object', { watch: 'device:x' }]) {
      const w = watch();
      now += 5000;
      if (heartbeat === 'not an object') broker.publish(replicaHeartbeatSubject('r1'), new TextEncoder().encode('{'));
      else beat('r1', heartbeat);
      await settle();
      expect(w.withData(frame, device('app-1', 'dev-1'))).toBe(true);
      w.close();
    }
  });

  it('forgets a replica not heard for the replica timeout, and follows the latest heartbeat of each', async () => {
    const w = watch();
    now += 5000;
    beat('r1', { watch: ['device:app-1.dev-1'] });
    beat('r2', { watch: ['device:app-2.dev-1'] });
    await settle();
    expect(w.withData(frame, device('app-2', 'dev-1'))).toBe(true);
    beat('r2', { watch: [] });
    await settle();
    expect(w.withData(frame, device('app-2', 'dev-1'))).toBe(false);
    expect(w.withData(frame, device('app-1', 'dev-1'))).toBe(true);
    now += 4001;
    expect(w.withData(frame, device('app-1', 'dev-1'))).toBe(false);
    w.close();
  });
});
