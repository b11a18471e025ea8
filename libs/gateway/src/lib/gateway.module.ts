import { type DynamicModule, Module } from '@nestjs/common';
import type { ComponentName } from '@lorawan/api';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { TRANSPORT, type Transport } from '@lorawan/transport';
import { Authenticator } from './authenticator';
import { EventStreamRoute } from './event-stream.route';
import { HealthController } from './health.controller';
import { RpcForwarder } from './rpc-forwarder';
import { RpcRoutes } from './rpc-routes';
import { GATEWAY_READY_COMPONENTS } from './tokens';

export interface GatewayOptions {
  config: StackConfig;
  transport: Transport;
  /** Components `/readyz` waits for (default: the Identity Server). */
  readyComponents?: ComponentName[];
}

@Module({})
export class GatewayModule {
  static forRoot(options: GatewayOptions): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [HealthController],
      providers: [
        { provide: STACK_CONFIG, useValue: options.config },
        { provide: TRANSPORT, useValue: options.transport },
        { provide: GATEWAY_READY_COMPONENTS, useValue: options.readyComponents ?? ['is'] },
        Authenticator,
        RpcForwarder,
        RpcRoutes,
        EventStreamRoute,
      ],
    };
  }
}
