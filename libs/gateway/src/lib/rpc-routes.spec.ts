import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { RpcDefinition } from '@lorawan/api';
import { Code, defineError } from '@lorawan/errors';
import type { Authenticator } from './authenticator';
import type { RpcForwarder } from './rpc-forwarder';
import { RpcRoutes } from './rpc-routes';

const ErrPaused = defineError('pkg/applicationserver/io/web', 'webhook_paused', 'webhook paused', Code.FailedPrecondition);
const ErrMissing = defineError('pkg/applicationserver/io/web', 'webhook_not_found', 'webhook not found', Code.NotFound);

const WEBHOOK_PUSH = '/api/v3/as/applications/app1/webhooks/wh1/devices/dev1/down/push';
const APP_AS_PUSH = '/api/v3/as/applications/app1/devices/dev1/down/push';
const BODY = JSON.stringify({ downlinks: [{ f_port: 1, frm_payload: 'AQID' }] });

describe('RpcRoutes: empty responses and status overrides (webhook-scoped downlink push/replace)', () => {
  let fastify: FastifyInstance;
  let outcome: () => Promise<unknown>;
  const forwarded: Array<{ rpc: RpcDefinition; body: unknown }> = [];

  beforeAll(async () => {
    fastify = Fastify();
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', { parseAs: 'string' }, (_req: FastifyRequest, body: string | Buffer, done) => done(null, body.toString()));
    const auth = {
      authenticate: async () => ({ kind: 'api-key', id: 'k', is_admin: false, key_rights: [], universal: false, rights: [] }),
    } as unknown as Authenticator;
    const forwarder = {
      forward: async (rpc: RpcDefinition, body: unknown) => {
        forwarded.push({ rpc, body });
        return { body: await outcome() };
      },
    } as unknown as RpcForwarder;
    new RpcRoutes(auth, forwarder).register(fastify, 1024 * 1024);
    await fastify.ready();
  });
  afterAll(() => fastify.close());
  beforeEach(() => {
    forwarded.length = 0;
    outcome = async () => ({});
  });

  const post = (url: string) =>
    fastify.inject({ method: 'POST', url, headers: { authorization: 'Bearer x', 'content-type': 'application/json' }, payload: BODY });

  it('answers 200 with an empty body on success', async () => {
    for (const op of ['push', 'replace']) {
      const res = await post(WEBHOOK_PUSH.replace(/push$/, op));
      expect([res.statusCode, res.body]).toEqual([200, '']);
    }
    expect(forwarded.map((f) => f.rpc.method)).toEqual(['WebhookDownlinkQueuePush', 'WebhookDownlinkQueueReplace']);
    expect(forwarded[0].body).toMatchObject({
      application_ids: { application_id: 'app1' },
      webhook_id: 'wh1',
      device_id: 'dev1',
      downlinks: [{ f_port: 1, frm_payload: 'AQID' }],
    });
  });

  it('answers 406 with an empty body when the webhook is paused', async () => {
    outcome = async () => {
      throw ErrPaused.with();
    };
    const res = await post(WEBHOOK_PUSH);
    expect([res.statusCode, res.body]).toEqual([406, '']);
  });

  it('answers other errors as Status JSON', async () => {
    outcome = async () => {
      throw ErrMissing.with();
    };
    const res = await post(WEBHOOK_PUSH);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toMatchObject({ code: Code.NotFound, message: expect.stringMatching(/^error:pkg\/applicationserver\/io\/web:webhook_not_found/) });
  });

  it('keeps JSON bodies and status codes for RPCs without the flags', async () => {
    const ok = await post(APP_AS_PUSH);
    expect([ok.statusCode, ok.body]).toEqual([200, '{}']);
    outcome = async () => {
      throw ErrPaused.with();
    };
    const failed = await post(APP_AS_PUSH);
    expect(failed.statusCode).toBe(400);
    expect(failed.json()).toMatchObject({ code: Code.FailedPrecondition });
  });
});
