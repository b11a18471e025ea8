import { EventEmitter } from 'node:events';
import {
  ACCESS_INVALIDATION_SUBJECT,
  type CallerIdentity,
  type Right,
  type EventJson,
  replicaHeartbeatSubject,
  SESSION_ID_PATTERN,
  STREAM_PING_MS,
  STREAM_REPLICA_TIMEOUT_MS,
  type StreamControl,
  type StreamMessage,
  streamSubject,
} from '@lorawan/api';
import type { StackConfig } from '@lorawan/config';
import { Code, defineError, type ErrorDetails } from '@lorawan/errors';
import { serveRpcDouble } from '@lorawan/testing';
import { decode, encode, InProcessBroker, InProcessClient, type RpcEnvelope } from '@lorawan/transport';
import { Authenticator } from './authenticator';
import { EventStreamRoute, rightsEntities } from './event-stream.route';
import { DEFAULT_STREAM_LIMITS, type StreamLimits, type StreamSink } from './event-stream.session';
import { RpcForwarder } from './rpc-forwarder';
import { framingFor, KEEP_ALIVE } from './stream-framing';

/** Stands in for `http.ServerResponse`: records what is written, `writableLength` settable. */
class FakeSink extends EventEmitter implements StreamSink {
  status?: number;
  headers: Record<string, string> = {};
  chunks: string[] = [];
  writableEnded = false;
  destroyed = false;
  writableLength = 0;

  writeHead(status: number, headers: Record<string, string>) {
    if (this.status !== undefined) throw new Error('writeHead twice');
    this.status = status;
    this.headers = headers;
  }
  write(chunk: string | Uint8Array) {
    if (this.writableEnded || this.destroyed) throw new Error('write after end');
    if (this.status === undefined) throw new Error('write before writeHead');
    this.chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }
  end(chunk?: string) {
    if (this.writableEnded) throw new Error('end twice');
    if (chunk !== undefined) this.chunks.push(chunk);
    this.writableEnded = true;
    // A ServerResponse closes once the response is finished: all of it handed to the client.
    if (this.writableLength === 0) setImmediate(() => this.emit('close'));
  }
  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
  }
  /** The client goes away. */
  disconnect() {
    this.destroy();
  }
  get text() {
    return this.chunks.join('');
  }
}

const flush = async (n = 3) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

function event(name: string, n = 0): EventJson {
  return {
    name,
    time: '2024-05-01T10:00:00.000000Z',
    identifiers: [{ application_ids: { application_id: 'app-1' } }],
    correlation_ids: [`test:${n}`],
    origin: 'test',
    visibility: { rights: ['RIGHT_APPLICATION_DEVICES_READ'] },
    unique_id: `01HX000000000000000000000${n % 10}`,
  };
}
const START = event('events.stream.start');

type ServiceAnswer = (req: { body: Record<string, unknown>; ctx: RpcEnvelope['ctx'] }) => Promise<{ ok: unknown } | { error: ErrorDetails }>;
const ErrNoRights = defineError('pkg/auth/rights', 'no_application_rights', 'no rights for application `{uid}`', Code.PermissionDenied);
const ErrKeyExpired = defineError('pkg/identityserver', 'api_key_expired', 'API key expired', Code.Unauthenticated);
const ErrNoIdentifiers = defineError('pkg/events/grpc', 'no_identifiers', 'no identifiers', Code.InvalidArgument);

/** A gateway EventStreamRoute on an in-process transport, with an IS (Authorize) and an events replica double. */
function setup(limits: Partial<StreamLimits> = {}) {
  const transport = new InProcessBroker();
  const config = { authCacheTtlMs: 0, rpcTimeoutMs: 1000 } as StackConfig;
  const authorizations: Array<{ authorization: string; entity?: { kind: string; id: string } }> = [];
  /** The key as the IS double knows it: when it expires, whether it was deleted, its rights on app-1. */
  const key: { expiresAt?: string; deleted: boolean; rights: Right[] } = { deleted: false, rights: ['RIGHT_APPLICATION_INFO'] };
  serveRpcDouble(transport, 'EntityAccess.Authorize', async (request) => {
    const body = request.body as { authorization: string; entity?: { kind: string; id: string } };
    authorizations.push(body);
    if (body.authorization === 'Bearer unknown' || key.deleted)
      return { error: defineError('pkg/identityserver', 'api_key_not_found', 'API key not found', Code.Unauthenticated).with().toDetails() };
    if (key.expiresAt !== undefined && Date.now() >= Date.parse(key.expiresAt)) return { error: ErrKeyExpired.with().toDetails() };
    const caller: CallerIdentity = {
      ...(key.expiresAt !== undefined ? { expires_at: key.expiresAt } : {}),
      kind: 'api-key',
      id: 'KEY1',
      owner: { kind: 'user', id: 'usr-1' },
      is_admin: false,
      key_rights: ['RIGHT_APPLICATION_INFO'],
      universal: false,
      entity: body.entity as never,
      rights: body.entity?.id === 'app-1' ? [...key.rights] : [],
    };
    return { ok: caller };
  });
  const requests: Array<{ body: Record<string, unknown>; ctx: RpcEnvelope['ctx'] }> = [];
  let answer: ServiceAnswer = async () => ({ ok: { start: START } });
  const serving = serveRpcDouble(transport, 'Events.Stream', async (envelope) => {
    const req = envelope as { body: Record<string, unknown>; ctx: RpcEnvelope['ctx'] };
    requests.push(req);
    return answer(req);
  });
  const controls: Array<{ session: string; message: StreamControl }> = [];
  /** Every control message, of any session. */
  const allControls: string[] = [];
  transport.subscribe('stream-control.*', (p, subject) => allControls.push(`${subject} ${Buffer.from(p).toString()}`));
  const watch = (session: string) => transport.subscribe(`stream-control.${session}`, (p) => controls.push({ session, message: decode<StreamControl>(p) }));
  const forwarder = new RpcForwarder(new InProcessClient(transport, config.rpcTimeoutMs), config, 1024 * 1024);
  const auth = new Authenticator(config, transport, forwarder);
  const route = new EventStreamRoute(auth, forwarder, transport, limits);
  const publish = (session: string, message: StreamMessage) => transport.publish(streamSubject(session), encode(message));
  async function open(
    body: Record<string, unknown> = { identifiers: [{ application_ids: { application_id: 'app-1' } }] },
    options: { accept?: string; authorization?: string | null } = {},
  ) {
    const sink = new FakeSink();
    const authorization = options.authorization === null ? undefined : (options.authorization ?? 'Bearer good');
    await route.open({ authorization, accept: options.accept, request: body, requestId: 'REQ1', sink });
    const session = requests.length > 0 ? (requests[requests.length - 1].body.session_id as string) : '';
    return { sink, session };
  }
  return {
    transport,
    auth,
    key,
    route,
    requests,
    controls,
    allControls,
    watch,
    authorizations,
    publish,
    open,
    serving,
    setAnswer: (fn: ServiceAnswer) => (answer = fn),
  };
}

/** The SDK-style reader: split on `\n`, parse each non-empty line, take `.result`. */
const lineResults = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { result: EventJson }).result);
/** The JS SDK's `subscribeToHttpStream`: split on `\n\n`, the last piece is an incomplete remainder. */
const sdkResults = (text: string) =>
  text
    .split('\n\n')
    .slice(0, -1)
    .map((part) => (JSON.parse(part) as { result: EventJson }).result);

afterEach(() => {
  jest.useRealTimers();
});

describe('stream framing', () => {
  it('uses `\\n\\n` and text/event-stream only for exactly `Accept: text/event-stream`', () => {
    expect(framingFor('text/event-stream')).toEqual({ contentType: 'text/event-stream', delimiter: '\n\n' });
    expect(framingFor(undefined)).toEqual({ contentType: 'application/json', delimiter: '\n' });
    expect(framingFor('application/json')).toEqual({ contentType: 'application/json', delimiter: '\n' });
    expect(framingFor('text/event-stream; charset=utf-8')).toEqual({ contentType: 'application/json', delimiter: '\n' });
    expect(framingFor('*/*')).toEqual({ contentType: 'application/json', delimiter: '\n' });
  });

  it('keeps a single space as the keep-alive (JSON whitespace, no delimiter)', () => {
    expect(KEEP_ALIVE).toBe(' ');
  });
});

describe('rightsEntities', () => {
  it('names the rights entity of each well-formed identifier once, devices under their application', () => {
    expect(
      rightsEntities([
        { application_ids: { application_id: 'app-1' } },
        { device_ids: { device_id: 'dev-1', application_ids: { application_id: 'app-1' } } },
        { device_ids: { device_id: 'dev-2', application_ids: { application_id: 'app-2' } } },
        { gateway_ids: { gateway_id: 'gtw-1' } },
        { user_ids: { user_id: 'usr-1' } },
        { organization_ids: { organization_id: 'org-1' } },
        { client_ids: { client_id: 'cli-1' } },
      ]),
    ).toEqual([
      { kind: 'application', id: 'app-1' },
      { kind: 'application', id: 'app-2' },
      { kind: 'gateway', id: 'gtw-1' },
      { kind: 'user', id: 'usr-1' },
      { kind: 'organization', id: 'org-1' },
      { kind: 'client', id: 'cli-1' },
    ]);
  });

  it('skips malformed identifiers (the events service names them)', () => {
    expect(
      rightsEntities([
        null,
        'app-1',
        {},
        { application_ids: { application_id: 'Bad_ID' } },
        { application_ids: 'app-1' },
        { application_ids: { application_id: 'app-1' }, gateway_ids: { gateway_id: 'gtw-1' } },
        { device_ids: { device_id: 'dev-1' } },
        { constructor: { id: 'x' } },
        { application_ids: { application_id: 'a'.repeat(37) } },
      ]),
    ).toEqual([]);
    expect(rightsEntities(undefined)).toEqual([]);
    // Unknown keys, whatever their names, are not a second field of the oneof.
    expect(rightsEntities([JSON.parse('{"application_ids":{"application_id":"app-1"},"constructor":{"a":1},"__proto__":{"b":2},"toString":"x"}')])).toEqual([
      { kind: 'application', id: 'app-1' },
    ]);
    expect(rightsEntities({ application_ids: { application_id: 'app-1' } })).toEqual([]);
    expect(rightsEntities(Array.from({ length: 101 }, () => ({ application_ids: { application_id: 'app-1' } })))).toEqual([]);
  });
});

describe('EventStreamRoute', () => {
  it('subscribes before it asks, sets its own session ID, and sends the caller with its rights on each entity', async () => {
    const t = setup();
    let subscribedFirst = false;
    t.setAnswer(async (req) => {
      // Anything the replica publishes right away reaches the gateway.
      t.publish(req.body.session_id as string, { event: event('end_device.create', 1) });
      await flush();
      subscribedFirst = true;
      return { ok: { start: START } };
    });
    const { sink, session } = await t.open({
      identifiers: [
        { application_ids: { application_id: 'app-1' } },
        { device_ids: { device_id: 'dev-1', application_ids: { application_id: 'app-2' } } },
        { application_ids: { application_id: 'BAD' } },
      ],
      session_id: 'CLIENTCHOSEN123',
      names: ['end_device.create'],
    });
    expect(subscribedFirst).toBe(true);
    expect(session).toMatch(SESSION_ID_PATTERN);
    expect(session).not.toBe('CLIENTCHOSEN123');
    const req = t.requests[0];
    expect(req.body.names).toEqual(['end_device.create']);
    expect(req.ctx.request_id).toBe('REQ1');
    expect(req.ctx.correlation_ids).toEqual(['rpc:/ttn.lorawan.v3.Events/Stream:REQ1']);
    expect(req.ctx.caller).toMatchObject({ kind: 'api-key', id: 'KEY1', rights: [] });
    expect(req.ctx.caller?.entity).toBeUndefined();
    expect(req.ctx.caller?.entity_rights).toEqual([
      { entity: { kind: 'application', id: 'app-1' }, rights: ['RIGHT_APPLICATION_INFO'] },
      { entity: { kind: 'application', id: 'app-2' }, rights: [] },
    ]);
    expect(t.authorizations.map((a) => a.entity)).toEqual([
      { kind: 'application', id: 'app-1' },
      { kind: 'application', id: 'app-2' },
    ]);
    // Status 200 with the start event first, then what arrived while the replica was answering.
    expect(sink.status).toBe(200);
    expect(sink.headers).toMatchObject({ 'content-type': 'application/json', 'x-request-id': 'REQ1', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    expect(lineResults(sink.text).map((e) => e.name)).toEqual(['events.stream.start', 'end_device.create']);
    sink.disconnect();
  });

  it('writes every event of the session as `{"result":…}` + delimiter, in order, as it comes', async () => {
    const t = setup();
    const { sink, session } = await t.open(undefined, { accept: 'text/event-stream' });
    expect(sink.headers['content-type']).toBe('text/event-stream');
    for (let i = 1; i <= 5; i++) {
      t.publish(session, { event: event('end_device.update', i) });
      await flush();
      // Each is written on its own, at once (not batched until the next one).
      expect(sink.chunks).toHaveLength(i + 1);
      expect(sink.chunks[i]).toBe(`{"result":${JSON.stringify(event('end_device.update', i))}}\n\n`);
    }
    expect(sdkResults(sink.text).map((e) => e.correlation_ids[0])).toEqual(['test:0', 'test:1', 'test:2', 'test:3', 'test:4', 'test:5']);
    // Other sessions' messages are not this stream's.
    t.publish('OTHERSESSION0001', { event: event('end_device.delete', 9) });
    await flush();
    expect(sink.chunks).toHaveLength(6);
    sink.disconnect();
  });

  it('passes an event on as the replica encoded it; other encodings of `{event}` are re-framed on one line', async () => {
    const t = setup();
    const { sink, session } = await t.open();
    const e = event('end_device.update', 1);
    const publishRaw = (text: string) => t.transport.publish(streamSubject(session), Buffer.from(text));
    publishRaw(`{"event":${JSON.stringify(e)}}`);
    publishRaw(`{ "event": ${JSON.stringify(e)} }`);
    publishRaw(JSON.stringify({ event: e }, null, 2));
    publishRaw('{"event":');
    publishRaw('not json');
    publishRaw('{"unknown":true}');
    await flush();
    expect(sink.chunks.slice(1)).toEqual([`{"result":${JSON.stringify(e)}}\n`, `{"result":${JSON.stringify(e)}}\n`, `{"result":${JSON.stringify(e)}}\n`]);
    expect(sink.writableEnded).toBe(false);
    sink.disconnect();
  });

  it('answers an error before the stream with its status and `{"error":…}` + delimiter', async () => {
    const t = setup();
    t.setAnswer(async () => ({ error: ErrNoRights.with({ uid: 'app-9' }).toDetails() }));
    const { sink, session } = await t.open({ identifiers: [{ application_ids: { application_id: 'app-9' } }] });
    expect(sink.status).toBe(403);
    expect(sink.headers['content-type']).toBe('application/json');
    expect(sink.writableEnded).toBe(true);
    expect(sink.text.endsWith('}\n')).toBe(true);
    const body = JSON.parse(sink.text) as { error: { code: number; message: string; details: Array<Record<string, unknown>> } };
    expect(body.error).toMatchObject({ code: 7, message: 'error:pkg/auth/rights:no_application_rights (no rights for application `app-9`)' });
    expect(body.error.details[0]).toMatchObject({
      '@type': 'type.googleapis.com/ttn.lorawan.v3.ErrorDetails',
      namespace: 'pkg/auth/rights',
      name: 'no_application_rights',
      attributes: { uid: 'app-9' },
    });
    expect(t.route.openSessions).toBe(0);
    // The gateway still tells the session subject it is done (harmless when the replica kept nothing).
    expect(session).toMatch(SESSION_ID_PATTERN);

    t.setAnswer(async () => ({ error: ErrNoIdentifiers.with().toDetails() }));
    const bad = await t.open({}, { accept: 'text/event-stream' });
    expect(bad.sink.status).toBe(400);
    expect(bad.sink.headers['content-type']).toBe('text/event-stream');
    expect(bad.sink.text.endsWith('}\n\n')).toBe(true);
    expect(JSON.parse(bad.sink.text).error.details[0].name).toBe('no_identifiers');
  });

  it('answers 401 without Authorization or with an unknown key, without asking the events service', async () => {
    const t = setup();
    const none = await t.open(undefined, { authorization: null });
    expect(none.sink.status).toBe(401);
    expect(JSON.parse(none.sink.text).error.details[0]).toMatchObject({ namespace: 'pkg/identityserver', name: 'unauthenticated' });
    expect(none.sink.headers['www-authenticate']).toContain('pkg/identityserver:unauthenticated');
    const unknown = await t.open(undefined, { authorization: 'Bearer unknown' });
    expect(unknown.sink.status).toBe(401);
    expect(JSON.parse(unknown.sink.text).error.details[0].name).toBe('api_key_not_found');
    expect(t.requests).toHaveLength(0);
    expect(t.route.openSessions).toBe(0);
    // No session was opened: nothing subscribed, nothing to close.
    await flush();
    expect(t.allControls).toEqual([]);
    const listeners = (t.transport as unknown as { listeners: Map<string, Set<unknown>> }).listeners;
    expect([...listeners.entries()].filter(([subject, set]) => subject.startsWith('stream.') && set.size > 0)).toEqual([]);
  });

  it('answers 503 when no events replica serves streams', async () => {
    const t = setup();
    t.serving.unsubscribe();
    const { sink } = await t.open();
    expect(sink.status).toBe(503);
    expect(JSON.parse(sink.text).error).toMatchObject({ code: 14 });
    expect(t.route.openSessions).toBe(0);
  });

  it('writes a keep-alive space when idle, which line and `\\n\\n` readers skip', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const { keepAliveMs } = DEFAULT_STREAM_LIMITS;
    const spaces = (sink: FakeSink) => sink.chunks.filter((c) => c === KEEP_ALIVE).length;
    for (const accept of [undefined, 'text/event-stream']) {
      const t = setup();
      const { sink, session } = await t.open(undefined, { accept });
      jest.advanceTimersByTime(keepAliveMs * 3);
      expect(spaces(sink)).toBe(3);
      t.publish(session, { event: event('end_device.update', 1) });
      await flush();
      jest.advanceTimersByTime(keepAliveMs);
      expect(spaces(sink)).toBe(4);
      t.publish(session, { event: event('end_device.update', 2) });
      await flush();
      expect(sink.text).toMatch(accept ? /\n\n {3}\{"result".*\n\n {1}\{"result"/s : /\n {3}\{"result".*\n {1}\{"result"/s);
      const names = (accept ? sdkResults(sink.text) : lineResults(sink.text)).map((e) => e.name);
      expect(names).toEqual(['events.stream.start', 'end_device.update', 'end_device.update']);
      sink.disconnect();
    }
  });

  it('writes the keep-alive when nothing was written for keepAliveMs: after the start event, and after each message', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const { keepAliveMs } = DEFAULT_STREAM_LIMITS;
    const t = setup();
    const timersBefore = jest.getTimerCount();
    const { sink, session } = await t.open();
    /** The chunks written since the start event: `E` an event, `_` a keep-alive. */
    const written = () =>
      sink.chunks
        .slice(1)
        .map((c) => (c === KEEP_ALIVE ? '_' : 'E'))
        .join('');
    // The start event was just written: the first keep-alive comes keepAliveMs later, not in a second period.
    jest.advanceTimersByTime(keepAliveMs - 1);
    expect(written()).toBe('');
    jest.advanceTimersByTime(1);
    expect(written()).toBe('_');
    // A message a third into the period: the next keep-alive is keepAliveMs after it, not at the period's end.
    jest.advanceTimersByTime(keepAliveMs / 3);
    t.publish(session, { event: event('end_device.update', 1) });
    await flush();
    jest.advanceTimersByTime(keepAliveMs - 1);
    expect(written()).toBe('_E');
    jest.advanceTimersByTime(1);
    expect(written()).toBe('_E_');
    // Busy: messages more often than keepAliveMs, no keep-alive at all.
    for (let i = 0; i < 10; i++) {
      jest.advanceTimersByTime(keepAliveMs / 2);
      t.publish(session, { event: event('end_device.update', i) });
      await flush();
    }
    expect(written()).toBe(`_E_${'E'.repeat(10)}`);
    jest.advanceTimersByTime(keepAliveMs);
    expect(written()).toBe(`_E_${'E'.repeat(10)}_`);
    // However many writes, one keep-alive timer (and the ping interval) per stream.
    expect(jest.getTimerCount() - timersBefore).toBe(2);
    sink.disconnect();
    await flush();
    expect(jest.getTimerCount()).toBe(timersBefore);
  });

  it('pings the replica every STREAM_PING_MS while connected; on disconnect sends close and leaves nothing behind', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const t = setup();
    const timersBefore = jest.getTimerCount();
    const { sink, session } = await t.open();
    t.watch(session);
    expect(t.route.openSessions).toBe(1);
    jest.advanceTimersByTime(STREAM_PING_MS * 3);
    await flush();
    expect(t.controls.map((c) => c.message)).toEqual([{ ping: true }, { ping: true }, { ping: true }]);
    const written = sink.chunks.length;
    sink.disconnect();
    await flush();
    expect(t.controls.map((c) => c.message)).toEqual([{ ping: true }, { ping: true }, { ping: true }, { close: true }]);
    expect(t.route.openSessions).toBe(0);
    expect(jest.getTimerCount()).toBe(timersBefore);
    // Unsubscribed: later messages of the session go nowhere.
    t.publish(session, { event: event('end_device.update', 1) });
    jest.advanceTimersByTime(STREAM_PING_MS * 3);
    await flush();
    expect(sink.chunks).toHaveLength(written);
    expect(t.controls).toHaveLength(4);
  });

  it('100 streams opened and closed leave no session, subscription or timer behind', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const t = setup();
    const timersBefore = jest.getTimerCount();
    const sessions: string[] = [];
    for (let i = 0; i < 100; i++) {
      const { sink, session } = await t.open();
      sessions.push(session);
      sink.disconnect();
    }
    await flush();
    expect(new Set(sessions).size).toBe(100);
    expect(t.route.openSessions).toBe(0);
    expect(jest.getTimerCount()).toBe(timersBefore);
    const listeners = (t.transport as unknown as { listeners: Map<string, Set<unknown>> }).listeners;
    expect(sessions.filter((s) => (listeners.get(streamSubject(s))?.size ?? 0) > 0)).toEqual([]);
  });

  it('tells the replica to close a session the client left while it was opening', async () => {
    const t = setup();
    let release: () => void = () => undefined;
    t.setAnswer(async () => {
      await new Promise<void>((r) => (release = r));
      return { ok: { start: START } };
    });
    const sink = new FakeSink();
    const opening = t.route.open({
      authorization: 'Bearer good',
      accept: undefined,
      request: { identifiers: [{ application_ids: { application_id: 'app-1' } }] },
      requestId: 'R',
      sink,
    });
    await flush(5);
    const session = t.requests[0].body.session_id as string;
    t.watch(session);
    sink.disconnect();
    await flush();
    release();
    await opening;
    await flush();
    expect(sink.status).toBeUndefined();
    expect(t.controls.map((c) => c.message)).toEqual([{ close: true }, { close: true }]);
    expect(t.route.openSessions).toBe(0);
  });

  it('ends the stream with the replica’s error message, or at its end', async () => {
    const t = setup();
    const a = await t.open();
    t.publish(a.session, { error: defineError('pkg/events', 'buffer_full', 'subscriber too slow', Code.ResourceExhausted).with().toDetails() });
    await flush();
    expect(a.sink.status).toBe(200);
    expect(a.sink.writableEnded).toBe(true);
    const lines = a.sink.text.split('\n').filter((l) => l !== '');
    expect(JSON.parse(lines[1]).error).toMatchObject({ code: 8, message: 'error:pkg/events:buffer_full (subscriber too slow)' });
    expect(t.route.openSessions).toBe(0);

    const b = await t.open();
    t.publish(b.session, { end: true });
    await flush();
    expect(b.sink.writableEnded).toBe(true);
    expect(lineResults(b.sink.text).map((e) => e.name)).toEqual(['events.stream.start']);
    expect(t.route.openSessions).toBe(0);
  });

  it('ends the stream of a client that reads too slowly, with slow_subscriber, and frees its socket', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const limits = { maxBufferedBytes: 1000, hardMaxBufferedBytes: 10_000, slowGraceMs: 2000, closeGraceMs: 1000 };
    const t = setup(limits);
    const timersBefore = jest.getTimerCount();

    // Above the soft bound, then drained within the grace period: the stream goes on.
    const fast = await t.open();
    t.watch(fast.session);
    fast.sink.writableLength = 5000;
    t.publish(fast.session, { event: event('end_device.update', 1) });
    await flush();
    fast.sink.writableLength = 0;
    jest.advanceTimersByTime(limits.slowGraceMs);
    expect(fast.sink.writableEnded).toBe(false);

    // Still above it after the grace period: an error message, the end, the session closed.
    const slow = await t.open();
    t.watch(slow.session);
    slow.sink.writableLength = 5000;
    t.publish(slow.session, { event: event('end_device.update', 1) });
    await flush();
    expect(slow.sink.writableEnded).toBe(false);
    jest.advanceTimersByTime(limits.slowGraceMs);
    await flush();
    expect(slow.sink.writableEnded).toBe(true);
    const last = JSON.parse(
      slow.sink.text
        .split('\n')
        .filter((l) => l !== '')
        .pop() as string,
    );
    expect(last.error).toMatchObject({ code: 8 });
    expect(last.error.details[0]).toMatchObject({ namespace: 'pkg/events', name: 'slow_subscriber', attributes: { buffered_bytes: 5000, max_bytes: 1000 } });
    expect(t.controls.filter((c) => c.session === slow.session).map((c) => c.message)).toEqual([{ close: true }]);
    // The client never reads: the socket is destroyed after the close grace period.
    jest.advanceTimersByTime(limits.closeGraceMs);
    expect(slow.sink.destroyed).toBe(true);

    // Above the hard bound: at once.
    const burst = await t.open();
    burst.sink.writableLength = 20_000;
    t.publish(burst.session, { event: event('end_device.update', 1) });
    await flush();
    expect(burst.sink.writableEnded).toBe(true);
    expect(
      JSON.parse(
        burst.sink.text
          .split('\n')
          .filter((l) => l !== '')
          .pop() as string,
      ).error.details[0].attributes,
    ).toEqual({ buffered_bytes: 20_000, max_bytes: 10_000 });
    // Further messages are not written.
    t.publish(burst.session, { event: event('end_device.update', 2) });
    await flush();
    expect(burst.sink.text).not.toContain('test:2');

    fast.sink.disconnect();
    jest.advanceTimersByTime(limits.closeGraceMs);
    await flush();
    expect(t.route.openSessions).toBe(0);
    expect(jest.getTimerCount()).toBe(timersBefore);
  });

  it('ends every stream at shutdown: started ones end, opening ones answer 503; the replicas are told', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const t = setup();
    const timersBefore = jest.getTimerCount();
    const started = await t.open();
    t.watch(started.session);
    let release: () => void = () => undefined;
    t.setAnswer(async () => {
      await new Promise<void>((r) => (release = r));
      return { ok: { start: START } };
    });
    const sink = new FakeSink();
    const opening = t.route.open({
      authorization: 'Bearer good',
      accept: undefined,
      request: { identifiers: [{ application_ids: { application_id: 'app-1' } }] },
      requestId: 'R',
      sink,
    });
    await flush(5);
    expect(t.route.openSessions).toBe(2);
    t.route.onModuleDestroy();
    expect(started.sink.writableEnded).toBe(true);
    expect(sink.status).toBe(503);
    expect(t.route.openSessions).toBe(0);
    release();
    await opening;
    await flush();
    expect(t.controls.filter((c) => c.session === started.session).map((c) => c.message)).toEqual([{ close: true }]);
    expect(jest.getTimerCount()).toBe(timersBefore);
  });

  it('ends a stream whose events replica fell silent with unavailable (the client reconnects); streams of live or older replicas go on', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const t = setup();
    const timersBefore = jest.getTimerCount();
    t.route.onModuleInit();
    let replica: string | undefined = 'REPLICA1';
    t.setAnswer(async () => ({ ok: { start: START, ...(replica ? { replica } : {}) } }));
    const dying = await t.open();
    t.watch(dying.session);
    replica = 'REPLICA2';
    const alive = await t.open();
    replica = undefined;
    const older = await t.open();
    // REPLICA2 beats every second, REPLICA1 beat once and then died.
    t.transport.publish(replicaHeartbeatSubject('REPLICA1'), new Uint8Array(0));
    for (let s = 0; s * 1000 <= STREAM_REPLICA_TIMEOUT_MS + 2000; s++) {
      t.transport.publish(replicaHeartbeatSubject('REPLICA2'), new Uint8Array(0));
      jest.advanceTimersByTime(1000);
      await flush();
    }
    expect(dying.sink.writableEnded).toBe(true);
    const last = JSON.parse(dying.sink.text.trim().split('\n').pop() as string) as { error: { code: number; message: string } };
    expect(last.error).toMatchObject({ code: 14, message: 'error:pkg/rpc:unavailable (component `events` is unavailable)' });
    expect(t.controls.filter((c) => c.session === dying.session).map((c) => c.message)).toContainEqual({ close: true });
    expect([alive.sink.writableEnded, older.sink.writableEnded]).toEqual([false, false]);
    expect(t.route.openSessions).toBe(2);
    alive.sink.disconnect();
    older.sink.disconnect();
    t.route.onModuleDestroy();
    await flush();
    expect(jest.getTimerCount()).toBe(timersBefore);
  });

  describe('a stream lives no longer than its credential', () => {
    /** The last message of a stream: its end. */
    const lastOf = (sink: FakeSink) => JSON.parse(sink.text.trim().split('\n').pop() as string) as { error?: { code: number; message: string } };
    const invalidate = (t: ReturnType<typeof setup>, msg: object) => t.transport.publish(ACCESS_INVALIDATION_SUBJECT, encode(msg));

    function started() {
      const t = setup();
      t.auth.onModuleInit();
      t.route.onModuleInit();
      return t;
    }

    it('ends with the IS’s api_key_expired at the instant the key expires, and leaves no timer behind', async () => {
      jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
      const t = started();
      t.key.expiresAt = new Date(Date.now() + 90_000).toISOString();
      const { sink } = await t.open();
      expect(sink.status).toBe(200);
      jest.advanceTimersByTime(89_000);
      await flush(6);
      expect(sink.writableEnded).toBe(false);
      jest.advanceTimersByTime(1_000);
      await flush(6);
      expect(sink.writableEnded).toBe(true);
      expect(lastOf(sink).error).toMatchObject({ code: 16, message: 'error:pkg/identityserver:api_key_expired (API key expired)' });
      expect(t.route.openSessions).toBe(0);
      t.route.onModuleDestroy();
      t.auth.onModuleDestroy();
    });

    it('ends at once when its key is deleted (access.invalidate of the key), with the IS’s refusal; another key’s invalidation leaves it alone', async () => {
      const t = started();
      const { sink } = await t.open();
      invalidate(t, { api_key_id: 'SOMEONE-ELSE' });
      await flush(6);
      expect(sink.writableEnded).toBe(false);
      t.key.deleted = true;
      invalidate(t, { api_key_id: 'KEY1' });
      await flush(6);
      expect(sink.writableEnded).toBe(true);
      expect(lastOf(sink).error).toMatchObject({ code: 16, message: 'error:pkg/identityserver:api_key_not_found (API key not found)' });
      t.route.onModuleDestroy();
      t.auth.onModuleDestroy();
    });

    it('a change of its entity: the same rights go on, other rights end it with rights_changed (the client reconnects)', async () => {
      const t = started();
      const { sink } = await t.open();
      invalidate(t, { entity: { kind: 'application', id: 'app-1' } });
      await flush(6);
      expect(sink.writableEnded).toBe(false);
      t.key.rights = ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_TRAFFIC_READ'];
      invalidate(t, { entity: { kind: 'application', id: 'app-2' } });
      await flush(6);
      expect(sink.writableEnded).toBe(false);
      invalidate(t, { entity: { kind: 'application', id: 'app-1' } });
      await flush(6);
      expect(sink.writableEnded).toBe(true);
      expect(lastOf(sink).error).toMatchObject({ code: 10, message: expect.stringContaining('pkg/events:rights_changed') });
      t.route.onModuleDestroy();
      t.auth.onModuleDestroy();
    });
  });
});
