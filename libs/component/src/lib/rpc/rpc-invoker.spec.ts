import { gatewayDownlinkSubject, RPCS, type RpcContext } from '@lorawan/api';
import { Code, defineError } from '@lorawan/errors';
import { serveRpcDouble } from '@lorawan/testing';
import { decodeRequest, encodePacket, InProcessBroker, InProcessClient } from '@lorawan/transport';
import { RpcInvoker } from './rpc-invoker';

const CTX: RpcContext = { request_id: 'spec', correlation_ids: ['spec:1'] };
const KEY = '000102030405060708090A0B0C0D0E0F';

describe('RpcInvoker', () => {
  const broker = new InProcessBroker();
  const invoker = new RpcInvoker(new InProcessClient(broker, 1000));

  it('calls an RPC of the table by name with its context, and answers the typed reply', async () => {
    const seen: unknown[] = [];
    const serving = serveRpcDouble(broker, 'AsJs.GetAppSKey', (envelope) => {
      seen.push(envelope);
      return { ok: { app_s_key: { key: KEY } } };
    });
    const request = { session_key_id: 'AQID', dev_eui: '70B3D57ED005B59E', join_eui: '0000000000000000' };
    const answer = await invoker.invoke('AsJs.GetAppSKey', request, CTX);
    // The answer's type is the table's response class: `app_s_key.key` is known to the compiler.
    const key: string | undefined = answer.app_s_key.key;
    expect(key).toBe(KEY);
    expect(seen).toEqual([{ ctx: CTX, body: request }]);
    serving.unsubscribe();
  });

  it('rejects with the callee’s error details', async () => {
    const ErrNope = defineError('pkg/spec', 'nope', 'nope', Code.NotFound);
    const serving = serveRpcDouble(broker, 'GsIs.GetGatewayForEUI', () => ({ error: ErrNope.with().toDetails() }));
    await expect(invoker.invoke('GsIs.GetGatewayForEUI', { eui: '0102030405060708' }, CTX)).rejects.toMatchObject({
      namespace: 'pkg/spec',
      name: 'nope',
      code: 5,
    });
    serving.unsubscribe();
  });

  it('calls an RPC served per target on the subject given (a gateway’s downlinks)', async () => {
    const subject = gatewayDownlinkSubject(RPCS['NsGs.ScheduleDownlink'].subject, 'gtw-1');
    const served = broker.serve(subject, 'gs', (payload, reply) => {
      const packet = decodeRequest(payload);
      if (packet) reply(encodePacket({ id: packet.id, response: { delay: '1.000s', downlink_path: { uplink_token: 'AQ==' }, rx1: true }, isDisposed: true }));
    });
    const answer = await invoker.invoke('NsGs.ScheduleDownlink', { raw_payload: 'AQ==', request: { downlink_paths: [{ uplink_token: 'AQ==' }] } }, CTX, {
      subject,
    });
    expect(answer).toEqual({ delay: '1.000s', downlink_path: { uplink_token: 'AQ==' }, rx1: true });
    served.unsubscribe();
  });

  it('takes only the request type of the RPC named (checked by the compiler)', () => {
    // @ts-expect-error: `eui` is GetGatewayForEUI's field, not GetAppSKey's.
    const wrong = () => invoker.invoke('AsJs.GetAppSKey', { eui: '0102030405060708' }, CTX);
    expect(typeof wrong).toBe('function');
  });
});
