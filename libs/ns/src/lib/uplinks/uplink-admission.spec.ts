import type { RpcContext, UplinkMessage } from '@lorawan/api';
import type { RpcInvoker } from '@lorawan/component';
import { loadConfig } from '@lorawan/config';
import { Code, isStackError, type ErrorDetails } from '@lorawan/errors';
import { ApplicationUplinks } from '../application-uplinks/application-uplinks.service';
import { UplinkAdmission } from './uplink-admission';

const ctx = { request_id: 'r', correlation_ids: ['rpc:spec'] } as unknown as RpcContext;
const up = (): UplinkMessage => ({ raw_payload: 'QAEAAAAAAQAB', received_at: new Date().toISOString() }) as unknown as UplinkMessage;
const overloaded: ErrorDetails = {
  namespace: 'pkg/applicationserver',
  name: 'overloaded',
  message_format: 'overloaded',
  code: Code.ResourceExhausted,
} as ErrorDetails;

/** An AS that refuses every message for load while `busy`, and takes them otherwise. */
function applicationServer() {
  const as = { busy: true, calls: 0 };
  const rpc = {
    invoke: async () => {
      as.calls++;
      if (as.busy) throw overloaded;
      return {};
    },
  } as unknown as RpcInvoker;
  return { as, uplinks: new ApplicationUplinks(rpc) };
}

describe('UplinkAdmission with the AS pushing back', () => {
  it('refuses a share of data uplinks at the door while the AS refuses what it is sent for load, none once it takes it again; join-requests always pass', async () => {
    const { as, uplinks } = applicationServer();
    const admission = new UplinkAdmission(loadConfig({}), uplinks);
    const attempt = () =>
      admission
        .run('data_uplink', up(), async () => 'handled')
        .then(
          (r) => r,
          (err: unknown) => (isStackError(err) ? err.toDetails() : err),
        );

    expect(await attempt()).toBe('handled');
    for (let i = 0; i < 25; i++) expect(await uplinks.send([], ctx, { device_id: 'dev', what: 'uplink' })).toBe(false);
    expect(uplinks.pushback.current).toBeGreaterThan(0.4);
    const answers = await Promise.all(Array.from({ length: 400 }, attempt));
    const refused = answers.filter((a) => a !== 'handled');
    expect(refused.length / answers.length).toBeGreaterThan(0.3);
    expect(refused[0]).toMatchObject({ namespace: 'pkg/networkserver', name: 'application_server_overloaded', code: Code.ResourceExhausted });
    expect(await admission.run('join_request', up(), async () => 'join handled')).toBe('join handled');

    as.busy = false;
    for (let i = 0; i < 500; i++) expect(await uplinks.send([], ctx, { device_id: 'dev', what: 'uplink' })).toBe(true);
    expect(uplinks.pushback.current).toBe(0);
    const after = await Promise.all(Array.from({ length: 50 }, attempt));
    expect(after.every((a) => a === 'handled')).toBe(true);
  });

  it("takes only the AS's refusal for load as pushback: another ResourceExhausted (a tenant's formatter limits) does not make the NS refuse uplinks", async () => {
    const formatterBusy = { ...overloaded, namespace: 'pkg/messageprocessors', name: 'formatter_busy' } as ErrorDetails;
    const rpc = {
      invoke: async () => {
        throw formatterBusy;
      },
    } as unknown as RpcInvoker;
    const uplinks = new ApplicationUplinks(rpc);
    for (let i = 0; i < 100; i++) expect(await uplinks.send([], ctx, { device_id: 'dev', what: 'uplink' })).toBe(false);
    expect(uplinks.pushback.current).toBe(0);
  });
});
