/**
 * The embedded event history survives a crash: events of registry operations, once a stream's
 * `tail` replays them, are in the events service's SQLite file (`events.sqlite` under DATA_DIR);
 * after the all-in-one process is SIGKILLed and started again on the same DATA_DIR, a stream with
 * `tail` (or `after`) replays them unchanged, followed by the events of the new process.
 * Rules: wire contract §7 (history of `Events.Stream`).
 */
import type { EventJson } from '@lorawan/api';
import { startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { freshId } from './access';
import { expectOk, isDevicePath, isDevicesPath, otaaIds, Registries, sampleDevice } from './devices';
import { EventStream } from './event-stream';
import { Api, type ApiResponse, createApplications } from './http-client';

/** The device events of the registries (not the application's own). */
const DEVICE_EVENTS = ['/end_device\\./'];
/** How long a replay may stay silent before it is taken as complete. */
const QUIET_MS = 500;

interface Expected {
  name: string;
  dev: string;
  /** `rpc:/ttn.lorawan.v3.<Service>/<Method>:<X-Request-Id>` of the call that published it. */
  correlation: string;
}

const correlation = (service: string, method: string, res: ApiResponse) => `rpc:/ttn.lorawan.v3.${service}/${method}:${res.headers.get('x-request-id') ?? ''}`;
const deviceOf = (event: EventJson) => (event.identifiers[0] as { device_ids?: { device_id: string } }).device_ids?.device_id;
const describeEvents = (events: EventJson[]) => events.map((e) => `${e.name} ${deviceOf(e)}`).join(', ') || 'none';

function expectMatches(events: EventJson[], expected: Expected[]): void {
  try {
    expect(events).toHaveLength(expected.length);
    expected.forEach((e, i) => {
      expect(events[i].name).toBe(e.name);
      expect(deviceOf(events[i])).toBe(e.dev);
      expect(events[i].correlation_ids).toContain(e.correlation);
    });
  } catch (err) {
    throw new Error(`expected ${expected.map((e) => `${e.name} ${e.dev}`).join(', ')}; got ${describeEvents(events)}\n${(err as Error).message}`);
  }
}

describe('embedded mode: the event history survives a crash of the process', () => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const reg = new Registries(api);
  const open: EventStream[] = [];

  /** A stream on the application's device events with `history` (`tail`, `after`); its start event taken. */
  async function subscribe(app: string, history: Record<string, unknown>): Promise<EventStream> {
    const s = await EventStream.open(stack.baseUrl, {
      authorization: `Bearer ${stack.adminKey}`,
      body: { identifiers: [{ application_ids: { application_id: app } }], names: DEVICE_EVENTS, ...history },
    });
    open.push(s);
    if (s.status !== 200) throw new Error(`stream on ${app}: expected HTTP 200, got HTTP ${s.status}: ${s.text.slice(0, 2000)}`);
    expect((await s.nextEvent()).name).toBe('events.stream.start');
    return s;
  }

  /** What a new stream replays: its events until it stays quiet for QUIET_MS. */
  async function replay(app: string, history: Record<string, unknown>): Promise<EventJson[]> {
    const s = await subscribe(app, history);
    const events: EventJson[] = [];
    for (;;) {
      const more = await s.nextEvent(QUIET_MS).catch((err: Error) => {
        if (/^no message within/.test(err.message)) return undefined;
        throw err;
      });
      if (!more) break;
      events.push(more);
    }
    s.close();
    return events;
  }

  /** Replays until `count` events came (the history has them, written to its file before the query answered), at most 10 s. */
  async function replayUntil(app: string, count: number): Promise<EventJson[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const events = await replay(app, { tail: 100 });
      if (events.length >= count || Date.now() > deadline) return events;
    }
  }

  /** IS Create and AS Set of a new OTAA device. */
  async function register(app: string, dev: string): Promise<Expected[]> {
    const ids = otaaIds(dev);
    const created = await api.post(isDevicesPath(app), { end_device: { ids, name: 'durability e2e' } });
    expectOk(created, 'IS Create');
    const as = sampleDevice('as', ids);
    const set = await reg.setOk('as', app, dev, as.device, as.paths);
    return [
      { name: 'end_device.create', dev, correlation: correlation('EndDeviceRegistry', 'Create', created) },
      { name: 'as.end_device.create', dev, correlation: correlation('AsEndDeviceRegistry', 'Set', set) },
    ];
  }

  async function rename(app: string, dev: string): Promise<Expected> {
    const res = await api.put(isDevicePath(app, dev), {
      end_device: { ids: { device_id: dev }, name: `renamed ${Date.now()}` },
      field_mask: { paths: ['name'] },
    });
    expectOk(res, 'IS Update');
    return { name: 'end_device.update', dev, correlation: correlation('EndDeviceRegistry', 'Update', res) };
  }

  beforeAll(async () => {
    stack = await startEmbeddedStack();
  });

  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('replays after a SIGKILL and restart on the same DATA_DIR what was recorded before, then appends the new events', async () => {
    const app = freshId('dur-ev');
    await createApplications(api, [app]);
    const startedAt = new Date(Date.now() - 1000).toISOString();
    const expected = [...(await register(app, 'dev-a')), ...(await register(app, 'dev-b')), await rename(app, 'dev-a')];

    const before = await replayUntil(app, expected.length);
    expectMatches(before, expected);

    if (!stack.restart) throw new Error('the embedded stack cannot restart its process');
    await stack.restart('stack');

    // The same events (same unique IDs, as published), by `tail` and by `after`.
    const afterTail = await replay(app, { tail: 100 });
    expectMatches(afterTail, expected);
    expect(afterTail).toEqual(before);
    expect(await replay(app, { after: startedAt })).toEqual(before);
    expectMatches(await replay(app, { tail: 2 }), expected.slice(-2));

    // The new process records into the same history: its events follow the old ones.
    const s = await subscribe(app, { tail: 1 });
    expectMatches([await s.nextEvent()], expected.slice(-1));
    const later = await rename(app, 'dev-b');
    expectMatches([await s.nextEvent()], [later]);
    const all = await replay(app, { tail: 100 });
    expectMatches(all, [...expected, later]);
    expect(all.slice(0, before.length)).toEqual(before);
  });
});
