import { type DynamicModule, Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { ComponentName } from '@lorawan/api';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { TRANSPORT, type Transport } from '@lorawan/transport';
import { HealthService } from './health.service';
import { RpcServer } from './rpc-server';
import { EventPublisher } from './event-publisher';
import { COMPONENT_NAME } from './tokens';

export interface ComponentOptions {
  component: ComponentName;
  config: StackConfig;
  transport: Transport;
}

/** What every component has: its config, the transport, health, and the RPC server. */
@Global()
@Module({})
export class ComponentModule {
  static forRoot(options: ComponentOptions): DynamicModule {
    return {
      module: ComponentModule,
      imports: [DiscoveryModule],
      providers: [
        { provide: STACK_CONFIG, useValue: options.config },
        { provide: TRANSPORT, useValue: options.transport },
        { provide: COMPONENT_NAME, useValue: options.component },
        HealthService,
        RpcServer,
        EventPublisher,
      ],
      exports: [STACK_CONFIG, TRANSPORT, COMPONENT_NAME, HealthService, EventPublisher],
    };
  }
}
