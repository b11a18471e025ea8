/**
 * Event streams (`POST /api/v3/events`) end to end, in both run modes: registry operations in the
 * IS, JS, NS and AS reach a stream on their application in order, with identifiers, data and
 * correlation IDs; name filters; history (`tail`, `after`); visibility by the subscriber's
 * rights; errors before the stream starts; framing (`\n` or `\n\n`); and streams that come and go
 * leave nothing behind. Streams are read as TTS clients read them (`event-stream.ts`).
 * Rules: wire contract §7 (and §1 for errors).
 */
import { connect, type NatsConnection } from 'nats';
import { type EventJson, STREAM_PING_MS } from '@lorawan/api';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest, TEST_NATS_URL, uniqueSuffix } from '@lorawan/testing';
import { Access, freshId } from './access';
import {
  type DeviceIds,
  expectOk,
  isDevicePath,
  isDevicesPath,
  otaaIds,
  type Registry,
  Registries,
  registryDevicePath,
  sampleDevice,
  sampleUpdate,
} from './devices';
import { EventStream, type OpenOptions, parseLines, parseSdk } from './event-stream';
import { Api, type ApiResponse, createApplications, type ErrorDetailsJson, expectTtsError, leafCause, TIMESTAMP_6, ULID } from './http-client';

/** Distributed mode: the stack's subjects, so that the suite can watch the gateway ⇄ events session protocol on NATS. */
const SUBJECT_PREFIX = `ev${uniqueSuffix()}`;

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'js', 'ns', 'as', 'events'], env: { NATS_SUBJECT_PREFIX: SUBJECT_PREFIX } })],
  ['embedded', () => startEmbeddedStack()],
];

const VALUE_TYPE = 'type.googleapis.com/google.protobuf.Value';
const DEVICES_READ = 'RIGHT_APPLICATION_DEVICES_READ';
/** The gRPC service of each registry, as in correlation IDs `rpc:/ttn.lorawan.v3.<Service>/<Method>:<request ID>`. */
const SERVICE: Record<Registry | 'is', string> = { is: 'EndDeviceRegistry', js: 'JsEndDeviceRegistry', ns: 'NsEndDeviceRegistry', as: 'AsEndDeviceRegistry' };
/** Event name prefix of each registry's device events. */
const PREFIX: Record<Registry | 'is', string> = { is: 'end_device', js: 'js.end_device', ns: 'ns.end_device', as: 'as.end_device' };

const appIds = (app: string) => ({ application_ids: { application_id: app } });
const correlation = (service: string, method: string, res: ApiResponse) => `rpc:/ttn.lorawan.v3.${service}/${method}:${requestIdOf(res)}`;

function requestIdOf(res: ApiResponse): string {
  const id = res.headers.get('x-request-id');
  if (!id) throw new Error(`no X-Request-Id on a response: HTTP ${res.status}`);
  return id;
}

/** What one registry call is expected to publish. */
interface Expected {
  name: string;
  app: string;
  dev: string;
  correlation: string;
  /** Update events: the request's field-mask paths. */
  paths?: string[];
}

function expectDeviceEvent(event: EventJson, e: Expected): void {
  const what = `${e.name} of ${e.app}/${e.dev}`;
  try {
    expect(event.name).toBe(e.name);
    expect(event.identifiers).toEqual([{ device_ids: expect.objectContaining({ device_id: e.dev, application_ids: { application_id: e.app } }) }]);
    expect(event.correlation_ids).toContain(e.correlation);
    expect(event.visibility).toEqual({ rights: [DEVICES_READ] });
    expect(event.time).toMatch(TIMESTAMP_6);
    expect(event.unique_id).toMatch(ULID);
    expect(typeof event.origin).toBe('string');
    expect(event.origin.length).toBeGreaterThan(0);
    if (e.paths) expect(event.data).toEqual({ '@type': VALUE_TYPE, value: e.paths });
    else expect(event.data).toBeUndefined();
  } catch (err) {
    throw new Error(`${what}: got ${JSON.stringify(event)}\n${(err as Error).message}`);
  }
}

/** A stream's error before it started: its status, `{"error": <Status>}` and the delimiter (wire contract §7.2). */
function expectStreamError(
  s: EventStream,
  status: number,
  code: number,
  namespace: string,
  name: string,
  attributes?: Record<string, unknown>,
): ErrorDetailsJson {
  const delimiter = s.headers['content-type'] === 'text/event-stream' ? '\n\n' : '\n';
  const body = s.json;
  if (s.status !== status || !body?.error) throw new Error(`expected HTTP ${status} {"error":…}, got HTTP ${s.status}: ${s.text.slice(0, 2000)}`);
  expect(s.text.endsWith(`}${delimiter}`)).toBe(true);
  const res: ApiResponse = {
    status: s.status,
    headers: new Headers({ 'content-type': 'application/json' }),
    text: JSON.stringify(body.error),
    json: body.error,
    ms: 0,
  };
  return expectTtsError(res, status, code, namespace, name, attributes);
}

/**
 * Distributed mode: the gateway ⇄ events session protocol as NATS carries it (`stream-control.<id>`
 * from the gateway, `stream.<id>` from the events replica), for checks that nothing outlives a stream.
 */
class SessionWatch {
  /** Sessions the gateway closed, with when. */
  readonly closed = new Map<string, number>();
  private readonly control: Array<{ session: string; at: number; message: string }> = [];
  private readonly streamed: Array<{ session: string; at: number; text: string }> = [];

  private constructor(private readonly nc: NatsConnection) {}

  static async start(): Promise<SessionWatch> {
    const watch = new SessionWatch(await connect({ servers: TEST_NATS_URL, name: 'events-e2e-watch' }));
    const decoder = new TextDecoder();
    const sessionOf = (subject: string) => subject.slice(subject.lastIndexOf('.') + 1);
    watch.nc.subscribe(`${SUBJECT_PREFIX}.stream-control.*`, {
      callback: (err, msg) => {
        if (err) return;
        const text = decoder.decode(msg.data);
        const session = sessionOf(msg.subject);
        watch.control.push({ session, at: Date.now(), message: text });
        if ((JSON.parse(text) as { close?: boolean }).close && !watch.closed.has(session)) watch.closed.set(session, Date.now());
      },
    });
    watch.nc.subscribe(`${SUBJECT_PREFIX}.stream.*`, {
      callback: (err, msg) => {
        if (!err) watch.streamed.push({ session: sessionOf(msg.subject), at: Date.now(), text: decoder.decode(msg.data) });
      },
    });
    await watch.nc.flush();
    // What earlier tests' streams still had in flight is not this test's.
    await new Promise((r) => setTimeout(r, 300));
    watch.closed.clear();
    watch.control.length = 0;
    watch.streamed.length = 0;
    return watch;
  }

  async until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }

  /** The sessions a message carrying this correlation ID was sent to (once deliveries settled). */
  async sessionsReachedBy(correlationId: string): Promise<string[]> {
    await new Promise((r) => setTimeout(r, 300));
    return [...new Set(this.streamed.filter((m) => m.text.includes(correlationId)).map((m) => m.session))];
  }

  /** Pings of a session after the gateway closed it. */
  pingsAfterClose(): string[] {
    return this.control.filter((c) => c.message.includes('ping') && (this.closed.get(c.session) ?? Infinity) < c.at).map((c) => c.session);
  }

  /** Messages the events service sent to a session after the gateway closed it (settling allowed for). */
  messagesAfterClose(): string[] {
    return this.streamed.filter((m) => (this.closed.get(m.session) ?? Infinity) + 200 < m.at).map((m) => `${m.session}: ${m.text.slice(0, 200)}`);
  }

  async stop(): Promise<void> {
    await this.nc.close();
  }
}

describe.each(MODES)('event streams (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const access = new Access(api);
  const reg = new Registries(api);
  const open: EventStream[] = [];
  /** The identifiers each device was registered with, by `app/dev`. */
  const deviceIds = new Map<string, DeviceIds>();

  /** Opens a stream (the admin key unless told), closed after the test. */
  async function stream(body: unknown, options: Partial<OpenOptions> = {}): Promise<EventStream> {
    const s = await EventStream.open(stack.baseUrl, { authorization: `Bearer ${stack.adminKey}`, ...options, body });
    open.push(s);
    return s;
  }

  /** A stream on the application that must start: its start event is taken. */
  async function subscribe(
    app: string,
    extra: Record<string, unknown> = {},
    options: Partial<OpenOptions> = {},
  ): Promise<{ s: EventStream; start: EventJson }> {
    const s = await stream({ identifiers: [appIds(app)], ...extra }, options);
    if (s.status !== 200) throw new Error(`stream on ${app}: expected HTTP 200, got HTTP ${s.status}: ${s.text.slice(0, 2000)}`);
    const first = await s.nextEvent();
    expect(first.name).toBe('events.stream.start');
    return { s, start: first };
  }

  async function freshApp(prefix = 'ev-app'): Promise<string> {
    const app = freshId(prefix);
    await createApplications(api, [app]);
    return app;
  }

  /** IS Create, JS/NS/AS Set of a new OTAA device: the events each publishes. */
  async function register(app: string, dev: string, only: Array<Registry | 'is'> = ['is', 'js', 'ns', 'as']): Promise<Expected[]> {
    const ids = otaaIds(dev);
    deviceIds.set(`${app}/${dev}`, ids);
    const out: Expected[] = [];
    for (const c of only) {
      if (c === 'is') {
        const res = await api.post(isDevicesPath(app), { end_device: { ids, name: 'events e2e' } });
        expectOk(res, 'IS Create');
        out.push({ name: 'end_device.create', app, dev, correlation: correlation(SERVICE.is, 'Create', res) });
      } else {
        const s = sampleDevice(c, ids);
        const res = await reg.setOk(c, app, dev, s.device, s.paths);
        out.push({ name: `${PREFIX[c]}.create`, app, dev, correlation: correlation(SERVICE[c], 'Set', res) });
      }
    }
    return out;
  }

  /** IS Update and JS/NS/AS Set of an existing device: update events with the request's paths. */
  async function update(app: string, dev: string, only: Array<Registry | 'is'> = ['is', 'js', 'ns', 'as']): Promise<Expected[]> {
    const out: Expected[] = [];
    for (const c of only) {
      if (c === 'is') {
        const res = await api.put(isDevicePath(app, dev), {
          end_device: { ids: { device_id: dev }, name: `renamed ${Date.now()}` },
          field_mask: { paths: ['name'] },
        });
        expectOk(res, 'IS Update');
        out.push({ name: 'end_device.update', app, dev, correlation: correlation(SERVICE.is, 'Update', res), paths: ['name'] });
      } else {
        const u = sampleUpdate(c);
        // The JS finds a device by its EUIs: the identifiers go with every Set.
        const res = await reg.setOk(c, app, dev, { ids: deviceIds.get(`${app}/${dev}`), ...u.device }, u.paths);
        out.push({ name: `${PREFIX[c]}.update`, app, dev, correlation: correlation(SERVICE[c], 'Set', res), paths: u.paths });
      }
    }
    return out;
  }

  /** Deletes in the seed order (AS, NS, JS, IS). */
  async function remove(app: string, dev: string, only: Array<Registry | 'is'> = ['as', 'ns', 'js', 'is']): Promise<Expected[]> {
    const out: Expected[] = [];
    for (const c of only) {
      const res = c === 'is' ? await api.delete(isDevicePath(app, dev)) : await api.delete(registryDevicePath(c, app, dev));
      expectOk(res, `${c.toUpperCase()} Delete`);
      out.push({ name: `${PREFIX[c]}.delete`, app, dev, correlation: correlation(SERVICE[c], 'Delete', res) });
    }
    return out;
  }

  async function expectEvents(s: EventStream, expected: Expected[]): Promise<void> {
    const got = await s.nextEvents(expected.length);
    expected.forEach((e, i) => expectDeviceEvent(got[i], e));
  }

  beforeAll(async () => {
    stack = await start();
  });

  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('streams a device registered in IS, JS, NS and AS, then updated and deleted, in order, with identifiers, data and correlation IDs', async () => {
    const app = await freshApp();
    const dev = freshId('dev');
    const { s, start } = await subscribe(app, {}, { requestId: `events-e2e-${Date.now()}` });
    expect(s.headers['content-type']).toBe('application/json');
    expect(start.identifiers).toEqual([appIds(app)]);
    expect(start.correlation_ids).toContain(`rpc:/ttn.lorawan.v3.Events/Stream:${s.headers['x-request-id']}`);
    expect(s.headers['x-request-id']).toMatch(/^events-e2e-/);
    expect(start.data).toBeUndefined();
    expect(start.time).toMatch(TIMESTAMP_6);
    expect(start.unique_id).toMatch(ULID);

    await expectEvents(s, await register(app, dev));
    await expectEvents(s, await update(app, dev));
    await expectEvents(s, await remove(app, dev));
    // Nothing else was published for the application meanwhile.
    await s.expectQuiet(300);
  });

  it('streams a device subscribed to by its own identifiers, and keeps other applications’ events out', async () => {
    const [app, other] = [await freshApp(), await freshApp()];
    const dev = freshId('dev');
    const s = await stream({ identifiers: [{ device_ids: { device_id: dev, application_ids: { application_id: app } } }] });
    expect(s.status).toBe(200);
    expect((await s.nextEvent()).name).toBe('events.stream.start');
    await register(other, freshId('dev'), ['is']);
    await expectEvents(s, await register(app, dev, ['is', 'ns']));
  });

  describe('names', () => {
    it('an exact name passes only that event; the start event lists it', async () => {
      const app = await freshApp();
      const dev = freshId('dev');
      const { s, start } = await subscribe(app, { names: ['end_device.update'] });
      expect(start.data).toEqual({ '@type': VALUE_TYPE, value: ['end_device.update'] });
      await register(app, dev, ['is', 'js']);
      await update(app, dev, ['js']);
      await expectEvents(s, await update(app, dev, ['is']));
      await s.expectQuiet(300);
    });

    it('a /regex/ passes the defined names it matches (unanchored); the start event lists them sorted', async () => {
      const app = await freshApp();
      const dev = freshId('dev');
      const { s, start } = await subscribe(app, { names: ['/^(js|ns)\\.end_device\\.(create|delete)/'] });
      const listed = (start.data as { value: string[] }).value;
      expect(start.data?.['@type']).toBe(VALUE_TYPE);
      expect(listed).toEqual(expect.arrayContaining(['js.end_device.create', 'js.end_device.delete', 'ns.end_device.create', 'ns.end_device.delete']));
      expect(listed.every((n) => /^(js|ns)\.end_device\.(create|delete)/.test(n))).toBe(true);
      expect(listed).toEqual([...listed].sort());
      const created = await register(app, dev);
      await update(app, dev);
      const removed = await remove(app, dev);
      await expectEvents(s, [created[1], created[2], removed[1], removed[2]]);
      await s.expectQuiet(300);
    });

    it('an unknown name, an invalid regex or one matching nothing → 400 before the stream', async () => {
      const app = await freshApp();
      expectStreamError(await stream({ identifiers: [appIds(app)], names: ['end_device.nope'] }), 400, 3, 'pkg/events', 'unknown_event_name', {
        name: 'end_device.nope',
      });
      expectStreamError(await stream({ identifiers: [appIds(app)], names: ['end_device.create', '/(/'] }), 400, 3, 'pkg/events', 'invalid_regexp');
      expectStreamError(await stream({ identifiers: [appIds(app)], names: ['/^no-event-is-named-so$/'] }), 400, 3, 'pkg/events', 'no_matching_events');
    });
  });

  describe('requests refused before the stream starts', () => {
    it('no identifiers → 400 pkg/events/grpc:no_identifiers', async () => {
      expectStreamError(await stream({}), 400, 3, 'pkg/events/grpc', 'no_identifiers');
      expectStreamError(await stream({ identifiers: [] }), 400, 3, 'pkg/events/grpc', 'no_identifiers');
      expectStreamError(await stream(''), 400, 3, 'pkg/events/grpc', 'no_identifiers');
    });

    it('a negative tail, an `after` that is not an RFC 3339 UTC time, a malformed identifier → 400 validation', async () => {
      const app = await freshApp();
      for (const [extra, field] of [
        [{ tail: -1 }, 'tail'],
        [{ after: 'yesterday' }, 'after'],
        [{ after: '2024-05-01T10:00:00+02:00' }, 'after'],
      ] as const) {
        const details = expectStreamError(await stream({ identifiers: [appIds(app)], ...extra }), 400, 3, 'pkg/errors', 'validation');
        expect(leafCause(details).attributes?.field).toBe(field);
      }
      expectStreamError(await stream({ identifiers: [{ application_ids: { application_id: 'Not_An_ID' } }] }), 400, 3, 'pkg/errors', 'validation');
    });

    it('a body that is not JSON → 400, a plain status as grpc-gateway answers', async () => {
      const s = await stream('{"identifiers":');
      expect(s.status).toBe(400);
      expect(s.json).toEqual(expect.objectContaining({ code: 3, message: expect.any(String) }));
    });

    it('an application the key has no rights on → 403 no_application_rights; with a stranger among several identifiers too', async () => {
      const [app, other] = [await freshApp(), await freshApp()];
      const key = await access.createKey('application', other, ['RIGHT_APPLICATION_ALL']);
      expectStreamError(
        await stream({ identifiers: [appIds(app)] }, { authorization: `Bearer ${key.token}` }),
        403,
        7,
        'pkg/auth/rights',
        'no_application_rights',
        { uid: app },
      );
      expectStreamError(
        await stream(
          { identifiers: [appIds(other), { device_ids: { device_id: 'some-dev', application_ids: { application_id: app } } }] },
          { authorization: `Bearer ${key.token}` },
        ),
        403,
        7,
        'pkg/auth/rights',
        'no_application_rights',
        {
          uid: app,
        },
      );
      // Its own application opens.
      await subscribe(other, {}, { authorization: `Bearer ${key.token}` });
    });

    it('no Authorization → 401; errors use the stream framing with Accept: text/event-stream', async () => {
      const app = await freshApp();
      expectStreamError(await stream({ identifiers: [appIds(app)] }, { authorization: undefined }), 401, 16, 'pkg/identityserver', 'unauthenticated');
      const s = await stream({ identifiers: [appIds(app)], names: ['nope'] }, { accept: 'text/event-stream' });
      expect(s.headers['content-type']).toBe('text/event-stream');
      expectStreamError(s, 400, 3, 'pkg/events', 'unknown_event_name');
    });
  });

  describe('history', () => {
    it('`tail` replays the last events of the application, then live ones follow', async () => {
      const app = await freshApp();
      const dev = freshId('dev');
      const created = await register(app, dev);
      const updated = await update(app, dev, ['is']);
      const { s } = await subscribe(app, { tail: 3 });
      await expectEvents(s, [created[2], created[3], updated[0]]);
      await expectEvents(s, await update(app, dev, ['as']));
    });

    it('`after` replays the events since that time, then live ones follow', async () => {
      const app = await freshApp();
      const dev = freshId('dev');
      await register(app, dev);
      await new Promise((r) => setTimeout(r, 50));
      const after = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 50));
      const updated = await update(app, dev, ['is', 'ns']);
      const { s } = await subscribe(app, { after });
      await expectEvents(s, updated);
      await expectEvents(s, await remove(app, dev, ['as']));
    });

    it('`tail` with names replays only matching events', async () => {
      const app = await freshApp();
      const dev = freshId('dev');
      const created = await register(app, dev);
      await update(app, dev, ['is']);
      const { s } = await subscribe(app, { tail: 10, names: ['/end_device\\.create$/'] });
      await expectEvents(s, created);
      await s.expectQuiet(300);
    });
  });

  it('a key with only RIGHT_APPLICATION_INFO opens the stream but sees no device events', async () => {
    const app = await freshApp();
    const key = await access.createKey('application', app, ['RIGHT_APPLICATION_INFO']);
    const info = await subscribe(app, {}, { authorization: `Bearer ${key.token}` });
    const admin = await subscribe(app);
    const dev = freshId('dev');
    const created = await register(app, dev, ['is', 'as']);
    const renamed = await api.put(`/api/v3/applications/${app}`, { application: { ids: {}, name: 'renamed for events' }, field_mask: { paths: ['name'] } });
    expectOk(renamed, 'application update');
    // The admin sees the device events, then the application's update.
    await expectEvents(admin.s, created);
    const adminUpdate = await admin.s.nextEvent();
    expect(adminUpdate.name).toBe('application.update');
    // The INFO key sees the application's update (visibility RIGHT_APPLICATION_INFO) and nothing before it.
    const infoUpdate = await info.s.nextEvent();
    expect(infoUpdate).toEqual(adminUpdate);
    expect(infoUpdate.correlation_ids).toContain(correlation('ApplicationRegistry', 'Update', renamed));
    expect(info.s.events.filter((e) => e.name.includes('end_device'))).toEqual([]);
  });

  describe('framing', () => {
    it('`Accept: text/event-stream`: that content type, messages delimited by a blank line (the SDK’s splitter)', async () => {
      const app = await freshApp();
      const { s } = await subscribe(app, {}, { accept: 'text/event-stream' });
      expect(s.headers['content-type']).toBe('text/event-stream');
      const created = await register(app, freshId('dev'), ['is']);
      await expectEvents(s, created);
      expect(s.text).toMatch(/^ *\{"result":\{.*\}\}\n\n *\{"result":\{.*\}\}\n\n$/s);
      expect(parseSdk(s.text).map((c) => ('result' in c ? c.result.name : 'error'))).toEqual(['events.stream.start', 'end_device.create']);
    });

    it('by default: application/json, one message per line (split on \\n, JSON.parse each non-empty line, .result)', async () => {
      const app = await freshApp();
      for (const accept of [undefined, 'application/json', 'text/event-stream; charset=utf-8']) {
        const { s } = await subscribe(app, {}, { accept });
        expect(s.headers['content-type']).toBe('application/json');
        const created = await register(app, freshId('dev'), ['is']);
        await expectEvents(s, created);
        expect(s.text).not.toContain('\n\n');
        expect(s.text.endsWith('}\n')).toBe(true);
        const { chunks, rest } = parseLines(s.text);
        expect(rest).toBe('');
        expect(chunks.map((c) => ('result' in c ? c.result.name : 'error'))).toEqual(['events.stream.start', 'end_device.create']);
        s.close();
      }
    });

    it('read with fetch and the SDK’s reader: each message arrives as it is published', async () => {
      const app = await freshApp();
      const res = await fetch(`${stack.baseUrl}/api/v3/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.adminKey}`, accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ identifiers: [appIds(app)] }),
      });
      expect(res.status).toBe(200);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      const results: EventJson[] = [];
      async function read(count: number): Promise<void> {
        while (results.length < count) {
          const { done, value } = await reader.read();
          if (done) throw new Error('the stream ended');
          buffer += decoder.decode(value, { stream: true });
          const parts = buffer.split(/\n\n/);
          buffer = parts.pop() as string;
          for (const part of parts) results.push((JSON.parse(part) as { result: EventJson }).result);
        }
      }
      try {
        await read(1);
        expect(results[0].name).toBe('events.stream.start');
        for (let i = 0; i < 3; i++) {
          const expected = await register(app, freshId('dev'), ['is']);
          await read(2 + i);
          expectDeviceEvent(results[1 + i], expected[0]);
        }
      } finally {
        await reader.cancel();
      }
    });
  });

  it('100 streams opened and dropped leave nothing behind: a new stream still gets every event at once', async () => {
    const app = await freshApp();
    const watch = mode === 'distributed' ? await SessionWatch.start() : undefined;
    try {
      for (let i = 0; i < 100; i++) {
        const { s } = await subscribe(app);
        s.close();
        open.pop();
      }
      const { s } = await subscribe(app);
      const started = Date.now();
      const created = await register(app, freshId('dev'));
      await expectEvents(s, created);
      expect(Date.now() - started).toBeLessThan(5000);
      if (!watch) return;
      // The gateway told the events service of each of the 100 disconnects…
      await watch.until(() => watch.closed.size >= 100);
      expect(watch.closed.size).toBe(100);
      // …which kept none of those sessions: the new events went to the open stream's session only.
      const reached = await watch.sessionsReachedBy(created[0].correlation);
      expect(reached).toHaveLength(1);
      expect(watch.closed.has(reached[0])).toBe(false);
      // Nor did the gateway keep a ping timer of a closed session.
      await new Promise((r) => setTimeout(r, STREAM_PING_MS + 1000));
      expect(watch.pingsAfterClose()).toEqual([]);
      expect(watch.messagesAfterClose()).toEqual([]);
    } finally {
      await watch?.stop();
    }
  }, 60_000);

  it('answered no request with a 5xx', () => {
    if (api.serverErrors.length > 0) console.error(`${mode} stack logs:\n${stack.logs()}`);
    expect(api.serverErrors).toEqual([]);
  });
});
