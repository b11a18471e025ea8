import type { CallerIdentity } from '@lorawan/api';
import { Right } from '@lorawan/api';
import type { RpcInvoker } from '@lorawan/component';
import { loadConfig } from '@lorawan/config';
import type { PubSub } from '@lorawan/transport';
import type { DownlinkQueue } from '../../downlinks/downlink-queue.service';
import { MqttServer } from './mqtt-server.service';

/** An IS that answers `EntityAccess.Authorize` only when the test says so. */
function slowIdentityServer() {
  const waiting: Array<(caller: CallerIdentity) => void> = [];
  const rpc = {
    invoke: jest.fn(() => new Promise<CallerIdentity>((res) => waiting.push(res))),
  } as unknown as RpcInvoker;
  const answerAll = () => {
    for (const res of waiting.splice(0)) res({ rights: [Right.RIGHT_APPLICATION_TRAFFIC_READ] } as CallerIdentity);
  };
  return { rpc, waiting, answerAll };
}

function server(env: Record<string, string>, rpc: RpcInvoker): MqttServer {
  return new MqttServer(loadConfig(env), {} as PubSub, rpc, {} as DownlinkQueue);
}

describe('MqttServer admission', () => {
  const key = Buffer.from('NNSXS.KEY');

  it('checks at most MQTT_AUTH_MAX_PENDING CONNECTs with the IS at once: the next is refused busy without asking it', async () => {
    const is = slowIdentityServer();
    const mqtt = server({ MQTT_AUTH_MAX_PENDING: '2' }, is.rpc);
    const first = [mqtt.admit('app-1', key), mqtt.admit('app-1', key)];
    expect(await mqtt.admit('app-1', key)).toBe('busy');
    expect(is.rpc.invoke).toHaveBeenCalledTimes(2);
    is.answerAll();
    for (const admission of await Promise.all(first)) expect(admission).toMatchObject({ applicationId: 'app-1', access: { read: true, write: false } });
    // Answered, the slots are free again.
    const again = mqtt.admit('app-1', key);
    expect(is.rpc.invoke).toHaveBeenCalledTimes(3);
    is.answerAll();
    expect(await again).toMatchObject({ applicationId: 'app-1' });
  });

  it('frees the slot of a check that failed', async () => {
    const rpc = { invoke: jest.fn().mockRejectedValue(new Error('nats: timeout')) } as unknown as RpcInvoker;
    const mqtt = server({ MQTT_AUTH_MAX_PENDING: '1' }, rpc);
    await expect(mqtt.admit('app-1', key)).rejects.toThrow('nats: timeout');
    await expect(mqtt.admit('app-1', key)).rejects.toThrow('nats: timeout');
    expect(rpc.invoke).toHaveBeenCalledTimes(2);
  });

  it('has no bound with 0, and refuses credentials that are no key before counting', async () => {
    const is = slowIdentityServer();
    const mqtt = server({ MQTT_AUTH_MAX_PENDING: '0' }, is.rpc);
    const many = Array.from({ length: 200 }, () => mqtt.admit('app-1', key));
    expect(await mqtt.admit('app-1', Buffer.alloc(0))).toBe('bad_credentials');
    expect(is.rpc.invoke).toHaveBeenCalledTimes(200);
    is.answerAll();
    expect((await Promise.all(many)).every((a) => typeof a === 'object')).toBe(true);
  });
});
