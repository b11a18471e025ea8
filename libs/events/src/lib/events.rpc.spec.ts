import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallerIdentity, type EntityRef, type EventJson, type StreamStartReply } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import type { ErrorDetails } from '@lorawan/errors';
import { rpcContext, startTestComponent, type TestComponent } from '@lorawan/testing';
import { EventsHub } from './events-hub';
import { EventsModule } from './events.module';
import { streamCaller as caller } from './fixtures.conformance';

const APP1: EntityRef = { kind: 'application', id: 'app1' };
const APP1_ALL = caller([[APP1, ['RIGHT_APPLICATION_ALL']]]);
let sessions = 0;
const sessionId = () => `SESSION${String(++sessions).padStart(6, '0')}`;

/** `Events.Stream` as the gateway calls it: through the transport, the RPC server's decoding in front. */
describe('Events.Stream over the transport', () => {
  let component: TestComponent;
  let hub: EventsHub;

  /** The embedded history's SQLite file goes here. */
  const dataDir = mkdtempSync(join(tmpdir(), 'lw-events-rpc-'));

  beforeAll(async () => {
    component = await startTestComponent(EventsModule, { component: 'events', config: loadConfig({ LOG_LEVEL: 'error', DATA_DIR: dataDir }) });
    hub = component.running.app.get(EventsHub);
  });
  afterAll(async () => {
    await component.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function stream(
    body: Record<string, unknown>,
    who: CallerIdentity | null = APP1_ALL,
  ): Promise<{ ok?: StreamStartReply; error?: ErrorDetails; requestId: string }> {
    const ctx = rpcContext('Events.Stream', who ?? undefined);
    const reply = await component.call('Events.Stream', { session_id: sessionId(), ...body }, ctx);
    return 'error' in reply ? { error: reply.error, requestId: ctx.request_id } : { ok: reply.ok as StreamStartReply, requestId: ctx.request_id };
  }
  const app1 = { application_ids: { application_id: 'app1' } };

  it('answers the events.stream.start event: requested identifiers, the RPC correlation ID, no visibility', async () => {
    const before = hub.stats().sessions;
    const { ok, requestId } = await stream({ identifiers: [app1, { device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } } }] });
    const start = ok?.start as EventJson;
    expect(start).toEqual({
      name: 'events.stream.start',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      identifiers: [app1, { device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } } }],
      correlation_ids: [`rpc:/ttn.lorawan.v3.Events/Stream:${requestId}`],
      origin: expect.any(String),
      unique_id: expect.stringMatching(/^[0-9A-Z]{26}$/),
    });
    expect(hub.stats().sessions).toBe(before + 1);
  });

  it('carries the resolved names (sorted) as a Value list when names are given', async () => {
    const { ok } = await stream({ identifiers: [app1], names: ['end_device.update', '/^as\\.end_device\\.(create|delete)$/'] });
    expect(ok?.start.data).toEqual({
      '@type': 'type.googleapis.com/google.protobuf.Value',
      value: ['as.end_device.create', 'as.end_device.delete', 'end_device.update'],
    });
  });

  it('refuses a request without identifiers: 400 pkg/events/grpc:no_identifiers (before checking names)', async () => {
    for (const body of [{}, { identifiers: [] }, { identifiers: [], names: ['nope'] }]) {
      expect((await stream(body)).error).toMatchObject({ namespace: 'pkg/events/grpc', name: 'no_identifiers', code: 3, message_format: 'no identifiers' });
    }
  });

  it('refuses identifiers with no kind or several kinds set as a validation error', async () => {
    expect((await stream({ identifiers: [app1, {}] })).error).toMatchObject({
      namespace: 'pkg/errors',
      name: 'validation',
      code: 3,
      attributes: { field: 'identifiers[1]', reason: 'embedded message failed validation' },
      cause: { name: 'validation', attributes: { field: 'ids', name: 'EntityIdentifiersValidationError', reason: 'value is required' } },
    });
    const both = { ...app1, gateway_ids: { gateway_id: 'gw1' } };
    expect((await stream({ identifiers: [both] })).error).toMatchObject({
      name: 'validation',
      attributes: { field: 'identifiers[0]' },
      cause: { attributes: { field: 'ids' } },
    });
    expect((await stream({ identifiers: [{ device_ids: { device_id: 'dev1' } }] })).error).toMatchObject({
      namespace: 'pkg/errors',
      name: 'validation',
      code: 3,
    });
    expect((await stream({ identifiers: [{ application_ids: { application_id: 'Bad_ID' } }] })).error).toMatchObject({ name: 'validation', code: 3 });
  });

  it('refuses unknown names, invalid and unmatched regular expressions (TTS errors, 400)', async () => {
    expect((await stream({ identifiers: [app1], names: ['end_device.update', 'end_device.nope'] })).error).toMatchObject({
      namespace: 'pkg/events',
      name: 'unknown_event_name',
      code: 3,
      attributes: { name: 'end_device.nope' },
    });
    expect((await stream({ identifiers: [app1], names: ['/(/'] })).error).toMatchObject({ namespace: 'pkg/events', name: 'invalid_regexp', code: 3 });
    expect((await stream({ identifiers: [app1], names: ['/^nothing\\./'] })).error).toMatchObject({
      namespace: 'pkg/events',
      name: 'no_matching_events',
      code: 3,
      attributes: { regexp: '^nothing\\.' },
    });
  });

  it('needs a session ID from the gateway', async () => {
    expect((await stream({ identifiers: [app1], session_id: undefined })).error).toMatchObject({
      name: 'validation',
      attributes: { field: 'session_id', reason: 'value is required' },
    });
    expect((await stream({ identifiers: [app1], session_id: 'not a session' })).error).toMatchObject({
      name: 'validation',
      attributes: { field: 'session_id' },
    });
  });

  it('refuses a caller without rights on a requested entity: 403 no_<kind>_rights (devices: their application)', async () => {
    expect((await stream({ identifiers: [{ application_ids: { application_id: 'app2' } }] })).error).toMatchObject({
      namespace: 'pkg/auth/rights',
      name: 'no_application_rights',
      code: 7,
      attributes: { uid: 'app2' },
    });
    expect((await stream({ identifiers: [app1, { device_ids: { device_id: 'dev1', application_ids: { application_id: 'app3' } } }] })).error).toMatchObject({
      name: 'no_application_rights',
      attributes: { uid: 'app3' },
    });
    expect((await stream({ identifiers: [{ gateway_ids: { gateway_id: 'gw1' } }] })).error).toMatchObject({
      name: 'no_gateway_rights',
      attributes: { uid: 'gw1' },
    });
    expect((await stream({ identifiers: [app1] }, caller([[APP1, []]]))).error).toMatchObject({ name: 'no_application_rights', code: 7 });
  });

  it('opens for any rights on each entity, and for internal (universal) callers; refuses no caller at all', async () => {
    expect((await stream({ identifiers: [app1] }, caller([[APP1, ['RIGHT_APPLICATION_INFO']]]))).ok).toBeDefined();
    expect((await stream({ identifiers: [{ gateway_ids: { gateway_id: 'gw9' } }] }, caller([], { kind: 'internal', universal: true }))).ok).toBeDefined();
    expect((await stream({ identifiers: [app1] }, null)).error).toMatchObject({ name: 'unauthenticated', code: 16 });
  });
});
