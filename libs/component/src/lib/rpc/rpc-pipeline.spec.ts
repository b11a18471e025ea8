import { Controller, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type GetEndDeviceRequest, type Right, type RpcContext, rpcPattern } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { startTestComponent, type TestComponent } from '@lorawan/testing';
import { WithTotal } from './paginated';
import { RpcCallContext, RpcRequest } from './rpc-request.decorator';

const seen: Array<{ req: GetEndDeviceRequest; ctx: RpcContext }> = [];

@Controller()
class FakeRegistryController {
  @MessagePattern(rpcPattern('EndDeviceRegistry.Get'))
  async get(@RpcRequest() req: GetEndDeviceRequest, @RpcCallContext() ctx: RpcContext) {
    seen.push({ req, ctx });
    if (req.end_device_ids.device_id === 'boom') throw new Error('database password=hunter2 leaked?');
    return new WithTotal({ ids: req.end_device_ids }, 7);
  }
}

@Module({ controllers: [FakeRegistryController] })
class FakeModule {}

@Controller()
class FakeJsRegistryController {
  @MessagePattern(rpcPattern('JsEndDeviceRegistry.Get'))
  get(@RpcRequest() req: GetEndDeviceRequest) {
    return { ids: req.end_device_ids, paths: req.field_mask?.paths };
  }
}

@Module({ controllers: [FakeJsRegistryController] })
class FakeJsModule {}

const internal = { kind: 'internal' as const, id: 'x', is_admin: false, key_rights: [], universal: false };
const admin: RpcContext = { request_id: 'r1', correlation_ids: [], caller: { ...internal, universal: true, rights: [] } };
const onApp = (id: string, rights: Right[]): RpcContext => ({ ...admin, caller: { ...internal, entity: { kind: 'application', id }, rights } });

/** The pipeline every @MessagePattern handler runs in: decode pipe, rights guard, error filter. */
describe('RPC pipeline', () => {
  let component: TestComponent;
  const output: string[] = [];
  beforeAll(async () => {
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => output.push(String(chunk)) > 0);
    component = await startTestComponent(FakeModule, { component: 'is', config: loadConfig({ LOG_LEVEL: 'debug' }) });
  });
  afterAll(async () => {
    await component.close();
    jest.restoreAllMocks();
  });

  // EndDeviceRegistry.Get is not paginated: the List reply shape `{body, total}` arrives as the message.
  const call = (body: unknown, ctx: RpcContext = admin) => component.call('EndDeviceRegistry.Get', body, ctx);

  it('decodes and validates the request into the contract class before the handler runs', async () => {
    const reply = await call({
      end_device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' }, dev_eui: '70b3d57ed005b59e' },
      field_mask: 'name',
    });
    expect(reply).toEqual({ ok: { body: { ids: { device_id: 'dev1', application_ids: { application_id: 'app1' }, dev_eui: '70B3D57ED005B59E' } }, total: 7 } });
    expect(seen.at(-1)?.req.field_mask?.paths).toEqual(['name']);
    expect(seen.at(-1)?.req.constructor.name).toBe('GetEndDeviceRequest');
    expect(seen.at(-1)?.ctx).toEqual(admin);
  });

  it('answers validation errors as data; the handler never sees the request', async () => {
    const before = seen.length;
    const reply = await call({ end_device_ids: { device_id: 'Bad_Id', application_ids: { application_id: 'app1' } } });
    expect(seen.length).toBe(before);
    expect(reply).toMatchObject({ error: { namespace: 'pkg/errors', name: 'validation', code: 3, cause: { attributes: { field: 'device_id' } } } });
    expect(await call('not an object')).toMatchObject({ error: { name: 'validation', attributes: { field: 'body' } } });
  });

  it('enforces the RPC rights from the caller identity (after validation, as TTS)', async () => {
    const body = { end_device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } } };
    expect(await call(body, { ...admin, caller: undefined })).toMatchObject({ error: { name: 'unauthenticated', code: 16 } });
    expect(await call(body, onApp('app1', []))).toMatchObject({ error: { name: 'no_application_rights', code: 7, attributes: { uid: 'app1' } } });
    expect(await call(body, onApp('app1', ['RIGHT_APPLICATION_INFO']))).toMatchObject({
      error: { name: 'insufficient_application_rights', attributes: { uid: 'app1', missing: ['RIGHT_APPLICATION_DEVICES_READ'] } },
    });
    expect(await call(body, onApp('app1', ['RIGHT_APPLICATION_DEVICES_READ']))).toHaveProperty('ok');
    // Rights resolved on another application count as none: a caller cannot reuse them here.
    expect(await call(body, onApp('app2', ['RIGHT_APPLICATION_DEVICES_READ']))).toMatchObject({
      error: { name: 'no_application_rights', attributes: { uid: 'app1' } },
    });
    // An invalid request from a caller without rights is a validation error (validated first).
    expect(await call({ end_device_ids: { device_id: 'Bad_Id', application_ids: { application_id: 'app1' } } }, onApp('app1', []))).toMatchObject({
      error: { name: 'validation' },
    });
  });

  it('asks for the rights the decoded field mask calls for (key material needs the keys right)', async () => {
    const js = await startTestComponent(FakeJsModule, { component: 'js', config: loadConfig({ LOG_LEVEL: 'error' }) });
    try {
      const body = { end_device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } } };
      const read = onApp('app1', ['RIGHT_APPLICATION_DEVICES_READ']);
      expect(await js.call('JsEndDeviceRegistry.Get', { ...body, field_mask: 'ids' }, read)).toMatchObject({ ok: { paths: ['ids'] } });
      for (const mask of ['root_keys', 'ids,root_keys.app_key', { paths: ['root_keys.app_key.key'] }]) {
        expect(await js.call('JsEndDeviceRegistry.Get', { ...body, field_mask: mask }, read)).toMatchObject({
          error: { name: 'insufficient_application_rights', attributes: { missing: ['RIGHT_APPLICATION_DEVICES_READ_KEYS'] } },
        });
      }
      const keys = onApp('app1', ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_DEVICES_READ_KEYS']);
      expect(await js.call('JsEndDeviceRegistry.Get', { ...body, field_mask: 'root_keys' }, keys)).toMatchObject({ ok: { paths: ['root_keys'] } });
    } finally {
      await js.close();
    }
  });

  it('turns unexpected failures into an internal error without leaking their text; the log has it, with the request', async () => {
    const reply = await call({ end_device_ids: { device_id: 'boom', application_ids: { application_id: 'app1' } } }, { ...admin, request_id: 'REQ-BOOM' });
    expect(reply).toMatchObject({ error: { namespace: 'pkg/errors', name: 'internal', code: 13 } });
    expect(JSON.stringify(reply)).not.toContain('hunter2');
    const line = output.map((o) => o.trim()).find((l) => l.includes('request failed unexpectedly'));
    expect(line).toBeDefined();
    const logged = JSON.parse(line as string) as Record<string, unknown>;
    expect(logged).toMatchObject({
      level: 'error',
      request_id: 'REQ-BOOM',
      rpc: 'EndDeviceRegistry.Get',
      component: 'is',
      correlation_id: (reply as { error: { correlation_id: string } }).error.correlation_id,
    });
  });

  it('answers its health check over the transport', async () => {
    const reply = await component.broker.request('rpc.is.Health.Check', Buffer.from(JSON.stringify({ id: '1', data: {} })), 1000);
    expect(JSON.parse(Buffer.from(reply).toString())).toMatchObject({ id: '1', response: { status: 'ok', checks: { transport: 'ok' } }, isDisposed: true });
  });

  it('writes every line of a request with its request ID, RPC and component', async () => {
    await call({ end_device_ids: { device_id: 'dev2', application_ids: { application_id: 'app1' } } }, { ...admin, request_id: 'REQ-TRACE' });
    const lines = output.flatMap((o) => o.split('\n')).filter((l) => l.includes('REQ-TRACE'));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(JSON.parse(l)).toMatchObject({ request_id: 'REQ-TRACE', rpc: 'EndDeviceRegistry.Get', component: 'is' });
  });

  it('writes the lines of a request made for a radio uplink with the uplink’s gs:uplink ID', async () => {
    const uplink = 'gs:uplink:01JTESTUPLINK00000000000000';
    await call(
      { end_device_ids: { device_id: 'boom', application_ids: { application_id: 'app1' } } },
      { ...admin, request_id: 'REQ-UPLINK', correlation_ids: ['rpc:x', uplink] },
    );
    const lines = output.flatMap((o) => o.split('\n')).filter((l) => l.includes('REQ-UPLINK'));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(JSON.parse(l)).toMatchObject({ request_id: 'REQ-UPLINK', uplink_id: uplink });
  });
});

describe('handler contract', () => {
  it('refuses to start a component serving another component’s RPC', async () => {
    await expect(startTestComponent(FakeJsModule, { component: 'is', config: loadConfig({ LOG_LEVEL: 'error' }) })).rejects.toThrow(
      /JsEndDeviceRegistry\.Get belongs to js, not is/,
    );
  });

  it('refuses a pattern that is no RPC of the table', async () => {
    @Controller()
    class Rogue {
      @MessagePattern('rpc.is.Secret.Backdoor')
      open() {
        return {};
      }
    }
    @Module({ controllers: [Rogue] })
    class RogueModule {}
    await expect(startTestComponent(RogueModule, { component: 'is', config: loadConfig({ LOG_LEVEL: 'error' }) })).rejects.toThrow(
      /rpc\.is\.Secret\.Backdoor is not an RPC of the table/,
    );
  });
});
