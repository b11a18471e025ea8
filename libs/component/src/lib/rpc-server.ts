import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { decodeMessage, type ComponentName, RPCS, type RpcDefinition, type RpcName, healthSubject, type RpcContext } from '@lorawan/api';
import { ErrInternal, StackError } from '@lorawan/errors';
import { decode, encode, type RpcReplyEnvelope, type RpcRequestEnvelope, type Subscription, type Transport, TRANSPORT } from '@lorawan/transport';
import { RPC_HANDLER, WithTotal } from './rpc-handler.decorator';
import { requireRights } from './rights';
import { HealthService } from './health.service';
import { COMPONENT_NAME } from './tokens';

type Handler = (request: object, ctx: RpcContext) => Promise<unknown>;

/**
 * Subscribes every `@RpcHandler` method to its subject (queue group = component) and runs the
 * pipeline every request goes through: decode + validate the request (the one validation point
 * for messages entering a component), check the caller's rights, call the handler, and answer
 * the result or the error as data.
 */
@Injectable()
export class RpcServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RpcServer.name);
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly health: HealthService,
    @Inject(TRANSPORT) private readonly transport: Transport,
    @Inject(COMPONENT_NAME) private readonly component: ComponentName,
  ) {}

  onApplicationBootstrap(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const method = instance[methodName] as Handler;
        const name = Reflect.getMetadata(RPC_HANDLER, method) as RpcName | undefined;
        if (name) this.register(RPCS[name], method.bind(instance));
      }
    }
    this.subscriptions.push(
      this.transport.serve(healthSubject(this.component), this.component, async () => encode({ ok: await this.health.check() })),
    );
  }

  onApplicationShutdown(): void {
    for (const sub of this.subscriptions.splice(0)) sub.unsubscribe();
  }

  private register(rpc: RpcDefinition, handler: Handler): void {
    if (rpc.component !== this.component) throw new Error(`${rpc.service}.${rpc.method} belongs to ${rpc.component}, not ${this.component}`);
    this.subscriptions.push(this.transport.serve(rpc.subject, rpc.component, (payload) => this.dispatch(rpc, handler, payload)));
    this.logger.debug(`serving ${rpc.subject}`);
  }

  private async dispatch(rpc: RpcDefinition, handler: Handler, payload: Uint8Array): Promise<Uint8Array> {
    let reply: RpcReplyEnvelope;
    try {
      const envelope = decode<RpcRequestEnvelope>(payload);
      const request = decodeMessage(rpc.request, envelope.body);
      requireRights(envelope.ctx, rpc, request);
      const result = await handler(request, envelope.ctx);
      reply = result instanceof WithTotal ? { ok: result.body, total: result.total } : { ok: result ?? {} };
    } catch (err) {
      if (err instanceof StackError) {
        reply = { error: err.toDetails() };
      } else {
        const internal = ErrInternal.with();
        this.logger.error(`${rpc.service}.${rpc.method} failed (correlation ${internal.correlationId}): ${(err as Error)?.stack ?? String(err)}`);
        reply = { error: internal.toDetails() };
      }
    }
    return encode(reply);
  }
}
