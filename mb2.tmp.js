require('reflect-metadata');
const { Module, Controller } = require('@nestjs/common');
const { MessagePattern } = require('@nestjs/microservices');
const { startComponent, RpcRequest, RpcCallContext } = require('./dist/libs/component/src/index.js');
const { loadConfig } = require('./dist/libs/config/src/index.js');
const { InProcessBroker, inProcessMessaging } = require('./dist/libs/transport/src/index.js');
const { lastValueFrom } = require('rxjs');
const api = require('./dist/libs/api/src/index.js');
const noAls = process.argv[2] === 'noals';
if (noAls) {
  const lc = require('./dist/libs/observability/src/lib/log-context.js');
}
class C {
  get(req, ctx) {
    return { ids: req.end_device_ids };
  }
}
const d = Object.getOwnPropertyDescriptor(C.prototype, 'get');
Reflect.decorate([MessagePattern(api.rpcPattern('EndDeviceRegistry.Get'))], C.prototype, 'get', d);
RpcRequest()(C.prototype, 'get', 0);
RpcCallContext()(C.prototype, 'get', 1);
Reflect.decorate([Controller()], C);
class M {}
Reflect.decorate([Module({ controllers: [C] })], M);
(async () => {
  const broker = new InProcessBroker();
  const config = loadConfig({ LOG_LEVEL: 'error' });
  const messaging = inProcessMessaging(broker, config);
  const running = await startComponent(M, { component: 'is', config, messaging, logger: false });
  const client = messaging.client();
  const caller = { kind: 'admin-key', id: 'a', is_admin: true, key_rights: [], universal: true, rights: [] };
  const body = { end_device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } } };
  const run = async (n) => {
    for (let i = 0; i < n; i++)
      await lastValueFrom(client.send(api.rpcPattern('EndDeviceRegistry.Get'), { ctx: { request_id: 'r', correlation_ids: [], caller }, body }));
  };
  await run(5000);
  const t = process.hrtime.bigint();
  await run(20000);
  console.log('µs per call', Number(process.hrtime.bigint() - t) / 20000 / 1000);
  const t2 = process.hrtime.bigint();
  for (let i = 0; i < 20000; i++) api.decodeMessage(api.RPCS['EndDeviceRegistry.Get'].request, JSON.parse(JSON.stringify(body)));
  console.log('decode+json only µs', Number(process.hrtime.bigint() - t2) / 20000 / 1000);
  await running.close();
})();
