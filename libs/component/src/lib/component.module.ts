import { type DynamicModule, Global, type LoggerService, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, DiscoveryModule } from '@nestjs/core';
import type { ComponentName } from '@lorawan/api';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { type Messaging, PUBSUB, type SubjectRouter, SUBJECT_ROUTER } from '@lorawan/transport';
import { EventPublisher } from './event-publisher';
import { healthController } from './health/health.controller';
import { HealthService } from './health/health.service';
import { HandlerContractCheck } from './rpc/handler-contract';
import { RequestDecoder } from './rpc/request-decoder';
import { DecodeRequestPipe } from './rpc/rpc-request.decorator';
import { RightsGuard } from './rpc/rights.guard';
import { StackErrorFilter } from './rpc/stack-error.filter';
import { COMPONENT_NAME, COMPONENT_RPC_CLIENT } from './tokens';
import { RpcInvoker } from './rpc/rpc-invoker';

export interface ComponentOptions {
  component: ComponentName;
  config: StackConfig;
  messaging: Messaging;
  /** The process's logger (pino through nestjs-pino); Nest's console logger when absent (tests). */
  logger?: LoggerService | false;
}

/**
 * What every component has: its config, publish/subscribe, health, the event publisher, and the
 * RPC pipeline every `@MessagePattern` handler runs in: the rights guard, the request decoder its
 * pipe and the guard share, and the filter that turns failures into error replies.
 */
@Global()
@Module({})
export class ComponentModule {
  /** `router`: the component's transport strategy, for handlers served on further subjects (SUBJECT_ROUTER). */
  static forRoot(options: ComponentOptions, router: SubjectRouter): DynamicModule {
    return {
      module: ComponentModule,
      imports: [DiscoveryModule],
      controllers: [healthController(options.component)],
      providers: [
        { provide: STACK_CONFIG, useValue: options.config },
        { provide: PUBSUB, useValue: options.messaging.pubsub },
        { provide: COMPONENT_NAME, useValue: options.component },
        { provide: COMPONENT_RPC_CLIENT, useFactory: () => options.messaging.client() },
        { provide: SUBJECT_ROUTER, useValue: router },
        HealthService,
        EventPublisher,
        RpcInvoker,
        RequestDecoder,
        DecodeRequestPipe,
        HandlerContractCheck,
        { provide: APP_GUARD, useClass: RightsGuard },
        { provide: APP_FILTER, useClass: StackErrorFilter },
      ],
      exports: [
        STACK_CONFIG,
        PUBSUB,
        COMPONENT_NAME,
        COMPONENT_RPC_CLIENT,
        SUBJECT_ROUTER,
        HealthService,
        EventPublisher,
        RpcInvoker,
        RequestDecoder,
        DecodeRequestPipe,
      ],
    };
  }
}
