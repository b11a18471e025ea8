import type { Type } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import { type ComponentName, RPCS, type RpcContext, type RpcName } from '@lorawan/api';
import { type RunningComponent, startComponent } from '@lorawan/component';
import type { StackConfig } from '@lorawan/config';
import type { ErrorDetails } from '@lorawan/errors';
import { createRootLogger, nestLogger } from '@lorawan/observability';
import { decodeRequest, encodePacket, InProcessBroker, inProcessMessaging, type RpcEnvelope, type Subscription } from '@lorawan/transport';
import { rpcContext } from './events';

/** An RPC's answer as a spec sees it: the message (and a List's total), or the error details. */
export type RpcReply = { ok: unknown; total?: number } | { error: ErrorDetails };

export interface TestComponent {
  /** The in-process broker the component serves on (and publishes its events to). */
  broker: InProcessBroker;
  running: RunningComponent;
  /** Calls an RPC as the gateway does (through the client proxy, JSON both ways). */
  call(name: RpcName, body: unknown, ctx?: RpcContext): Promise<RpcReply>;
  close(): Promise<void>;
}

/**
 * A component as a Nest microservice on an in-process broker, for specs: the real RPC pipeline
 * (decode pipe, rights guard, error filter) in front of the module under test. Its log lines go
 * to `process.stdout.write` (so a spec can capture them) at the config's LOG_LEVEL.
 */
export async function startTestComponent(
  feature: Type<unknown>,
  options: { component: ComponentName; config: StackConfig; broker?: InProcessBroker },
): Promise<TestComponent> {
  const broker = options.broker ?? new InProcessBroker();
  const messaging = inProcessMessaging(broker, { rpcTimeoutMs: 5000, shutdownGraceMs: 1000 });
  const root = createRootLogger(
    { level: options.config.logLevel, format: 'json' },
    { component: options.component },
    { write: (line: string) => process.stdout.write(line) },
  );
  const running = await startComponent(feature, { component: options.component, config: options.config, messaging, logger: nestLogger(root) });
  const client = messaging.client();
  return {
    broker,
    running,
    call: (name, body, ctx = rpcContext(name)) => callRpc(client, name, body, ctx),
    close: () => running.close(),
  };
}

/** Sends an RPC through a client proxy and returns its reply as data (errors included). */
export async function callRpc(client: ClientProxy, name: RpcName, body: unknown, ctx: RpcContext): Promise<RpcReply> {
  try {
    const response = await lastValueFrom(client.send<unknown>(RPCS[name].subject, { ctx, body }), { defaultValue: {} });
    if (!RPCS[name].paginated) return { ok: response };
    const { body: message, total } = response as { body: unknown; total: number };
    return { ok: message, total };
  } catch (err) {
    if (typeof err === 'object' && err !== null && 'namespace' in err && 'code' in err) return { error: err as ErrorDetails };
    throw err;
  }
}

/**
 * Serves an RPC on an in-process broker with a double (specs of the gateway side): `answer` gets
 * the request as a component would (`{ctx, body}`, the caller's rights unpacked) and returns the
 * reply as data; it is sent the way a component's server strategy sends it.
 */
export function serveRpcDouble(broker: InProcessBroker, name: RpcName, answer: (request: RpcEnvelope) => Promise<RpcReply> | RpcReply): Subscription {
  const rpc = RPCS[name];
  return broker.serve(rpc.subject, rpc.component, (payload, reply) => {
    const packet = decodeRequest(payload);
    if (!packet) throw new Error('not a request packet');
    void Promise.resolve(answer(packet.data)).then((out) => {
      if ('error' in out) return reply(encodePacket({ id: packet.id, err: out.error, isDisposed: true }));
      const response = rpc.paginated ? { body: out.ok, total: out.total ?? 0 } : out.ok;
      reply(encodePacket({ id: packet.id, response, isDisposed: true }));
    });
  });
}
