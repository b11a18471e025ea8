import type { ClientProxy, CustomTransportStrategy } from '@nestjs/microservices';
import { InProcessBroker } from './in-process/in-process-broker';
import { InProcessClient } from './in-process/in-process-client';
import { InProcessServer } from './in-process/in-process-server';
import { NatsLink } from './nats/nats-link';
import { NatsPubSub } from './nats/nats-pubsub';
import { type NatsSecurity, natsSecurityOptions } from './nats/nats-security';
import { StackClientNats } from './nats/stack-client-nats';
import { StackServerNats } from './nats/stack-server-nats';
import type { PubSub, SubjectRouter } from './pubsub';

export interface MessagingSettings {
  natsUrl?: string;
  natsSubjectPrefix?: string;
  /** TLS and credentials of the connection (NATS_TLS_*, NATS_USER). */
  natsSecurity?: NatsSecurity;
  /** Gateway → component request timeout (RPC_TIMEOUT_MS). */
  rpcTimeoutMs: number;
  /** How long a component's shutdown waits for requests in flight (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
}

/** A client proxy that also answers one request as a promise (the gateway's hot path: no Observable per request). */
export type RpcClient = ClientProxy & {
  call<T = unknown>(pattern: string, data: unknown, timeoutMs?: number): Promise<T>;
};

/**
 * How a process talks to the others: a @nestjs/microservices transport strategy per component it
 * serves, a client proxy to call components, and publish/subscribe. NATS when NATS_URL is set
 * (one connection per process), the in-process broker otherwise (embedded mode): the same
 * interfaces, so the business code does not know which one it runs on.
 */
export interface Messaging {
  readonly kind: 'nats' | 'in-process';
  readonly pubsub: PubSub;
  /** The largest message the transport carries (NATS `max_payload`; the same 1 MiB in process). */
  readonly maxPayload: number;
  /** The transport strategy serving a component's `@MessagePattern` handlers. */
  server(component: string): CustomTransportStrategy & SubjectRouter;
  /** A client proxy for the components' RPCs (`send(subject, {ctx, body})`, or `call` for a promise). */
  client(): RpcClient;
  /** Closes the connection (after the applications using it are closed). */
  close(): Promise<void>;
}

export async function connectMessaging(settings: MessagingSettings, name: string): Promise<Messaging> {
  if (!settings.natsUrl) return inProcessMessaging(new InProcessBroker(), settings);
  const link = await NatsLink.connect(settings.natsUrl, name, settings.natsSubjectPrefix, natsSecurityOptions(settings.natsSecurity));
  const pubsub = new NatsPubSub(link);
  return {
    kind: 'nats',
    pubsub,
    get maxPayload() {
      return link.maxPayload;
    },
    server: (component) => new StackServerNats({ link, component, shutdownGraceMs: settings.shutdownGraceMs }),
    client: () =>
      // Boundary: Nest's ClientNats types its status stream as NatsStatus where ClientProxy's default is string; the proxy is an RpcClient otherwise.
      new StackClientNats({ link, timeoutMs: settings.rpcTimeoutMs }) as unknown as RpcClient,
    close: () => link.close(),
  };
}

/** Embedded messaging on a broker (tests share one between several "processes"). */
export function inProcessMessaging(broker: InProcessBroker, settings: Pick<MessagingSettings, 'rpcTimeoutMs' | 'shutdownGraceMs'>): Messaging {
  return {
    kind: 'in-process',
    pubsub: broker,
    maxPayload: broker.maxPayload,
    server: (component) => new InProcessServer(broker, component, settings.shutdownGraceMs),
    client: () => new InProcessClient(broker, settings.rpcTimeoutMs),
    close: async () => broker.close(),
  };
}
