import { Injectable, Module } from '@nestjs/common';
import { type GetEndDeviceRequest, type Right, RPCS, type RpcContext } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { decode, encode, InProcessTransport, type RpcReplyEnvelope } from '@lorawan/transport';
import { RpcHandler, WithTotal } from './rpc-handler.decorator';
import { type RunningComponent, startComponent } from './start-component';

const seen: GetEndDeviceRequest[] = [];

@Injectable()
class FakeRegistry {
  @RpcHandler('EndDeviceRegistry.Get')
  async get(req: GetEndDeviceRequest) {
    seen.push(req);
    if (req.end_device_ids.device_id === 'boom') throw new Error('database password=hunter2 leaked?');
    return new WithTotal({ ids: req.end_device_ids }, 7);
  }
}

@Module({ providers: [FakeRegistry] })
class FakeModule {}

const internal = { kind: 'internal' as const, id: 'x', is_admin: false, key_rights: [], universal: false };
const admin: RpcContext = { request_id: 'r1', correlation_ids: [], caller: { ...internal, universal: true, rights: [] } };
const onApp = (id: string, rights: Right[]): RpcContext => ({ ...admin, caller: { ...internal, entity: { kind: 'application', id }, rights } });

describe('RpcServer pipeline', () => {
  const transport = new InProcessTransport();
  let component: RunningComponent;
  beforeAll(async () => {
    component = await startComponent(FakeModule, { component: 'is', config: loadConfig({ LOG_LEVEL: 'error' }), transport });
  });
  afterAll(async () => component.close());

  const call = async (body: unknown, ctx: RpcContext = admin) =>
    decode<RpcReplyEnvelope>(await transport.request(RPCS['EndDeviceRegistry.Get'].subject, encode({ ctx, body }), 1000));

  it('decodes and validates the request into the contract class before the handler runs', async () => {
    const reply = await call({ end_device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' }, dev_eui: '70b3d57ed005b59e' }, field_mask: 'name' });
    expect(reply).toEqual({ ok: { ids: { device_id: 'dev1', application_ids: { application_id: 'app1' }, dev_eui: '70B3D57ED005B59E' } }, total: 7 });
    expect(seen.at(-1)?.field_mask?.paths).toEqual(['name']);
  });

  it('answers validation errors as data; the handler never sees the request', async () => {
    const before = seen.length;
    const reply = await call({ end_device_ids: { device_id: 'Bad_Id', application_ids: { application_id: 'app1' } } });
    expect(seen.length).toBe(before);
    expect(reply).toMatchObject({ error: { namespace: 'pkg/errors', name: 'validation', code: 3, cause: { attributes: { field: 'device_id' } } } });
  });

  it('enforces the RPC rights from the caller identity', async () => {
    const body = { end_device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } } };
    expect(await call(body, { ...admin, caller: undefined })).toMatchObject({ error: { name: 'unauthenticated', code: 16 } });
    expect(await call(body, onApp('app1', []))).toMatchObject({ error: { name: 'no_application_rights', code: 7, attributes: { uid: 'app1' } } });
    expect(await call(body, onApp('app1', ['RIGHT_APPLICATION_INFO']))).toMatchObject({
      error: { name: 'insufficient_application_rights', attributes: { uid: 'app1', missing: ['RIGHT_APPLICATION_DEVICES_READ'] } },
    });
    expect(await call(body, onApp('app1', ['RIGHT_APPLICATION_DEVICES_READ']))).toHaveProperty('ok');
    // Rights resolved on another application count as none: a caller cannot reuse them here.
    expect(await call(body, onApp('app2', ['RIGHT_APPLICATION_DEVICES_READ']))).toMatchObject({ error: { name: 'no_application_rights', attributes: { uid: 'app1' } } });
    // Key material in the mask needs the keys right too.
    expect(await call({ ...body, field_mask: 'name' }, onApp('app1', ['RIGHT_APPLICATION_DEVICES_READ']))).toHaveProperty('ok');
  });

  it('turns unexpected failures into an internal error without leaking their text', async () => {
    const reply = await call({ end_device_ids: { device_id: 'boom', application_ids: { application_id: 'app1' } } });
    expect(reply).toMatchObject({ error: { namespace: 'pkg/errors', name: 'internal', code: 13 } });
    expect(JSON.stringify(reply)).not.toContain('hunter2');
  });

  it('answers its health check over the transport', async () => {
    const reply = decode<{ ok: { status: string } }>(await transport.request('rpc.is.Health.Check', encode({}), 1000));
    expect(reply.ok.status).toBe('ok');
  });
});
