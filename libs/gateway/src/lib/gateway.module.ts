import { type DynamicModule, Module } from '@nestjs/common';
import type { ComponentName } from '@lorawan/api';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { type Messaging, PUBSUB } from '@lorawan/transport';
import { Authenticator } from './authenticator';
import { EventStreamRoute } from './event-stream.route';
import { OpenApiRoute } from './openapi.route';
import { ConsoleRoute } from './console.route';
import { UpdateInfoRoute } from './cups/update-info.route';
import { HealthController } from './health.controller';
import { RpcForwarder } from './rpc-forwarder';
import { RpcRoutes } from './rpc-routes';
import { GATEWAY_READY_COMPONENTS, REQUEST_BODY_LIMIT, RPC_CLIENT } from './tokens';
import { STREAM_LIMITS } from './event-stream.route';
import type { StreamLimits } from './event-stream.session';
import { GatewayState } from './gateway-state';

export interface GatewayOptions {
  config: StackConfig;
  /** How the gateway reaches the components (NATS or in-process): its client proxy, publish/subscribe and message bound. */
  messaging: Messaging;
  /** Components `/readyz` waits for (default: the Identity Server). */
  readyComponents?: ComponentName[];
}

/** Room left in a transport message for the request's context (caller, rights, correlation IDs) around the body. */
export const ENVELOPE_ROOM_BYTES = 64 * 1024;

@Module({})
export class GatewayModule {
  static forRoot(options: GatewayOptions): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [HealthController],
      providers: [
        { provide: STACK_CONFIG, useValue: options.config },
        { provide: RPC_CLIENT, useValue: options.messaging.client() },
        { provide: PUBSUB, useValue: options.messaging.pubsub },
        { provide: GATEWAY_READY_COMPONENTS, useValue: options.readyComponents ?? ['is'] },
        { provide: REQUEST_BODY_LIMIT, useValue: requestBodyLimit(options.messaging.maxPayload) },
        { provide: STREAM_LIMITS, useValue: { maxStreamsPerCredential: options.config.limits.streamsPerKey } satisfies Partial<StreamLimits> },
        GatewayState,
        Authenticator,
        RpcForwarder,
        RpcRoutes,
        EventStreamRoute,
        OpenApiRoute,
        ConsoleRoute,
        UpdateInfoRoute,
      ],
    };
  }
}

/** Bodies up to the transport's message size less room for the request's context. */
export function requestBodyLimit(maxPayload: number): number {
  return Math.max(maxPayload - ENVELOPE_ROOM_BYTES, 1024);
}
