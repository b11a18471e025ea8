import { Inject, Injectable } from '@nestjs/common';
import { type ComponentName, healthSubject, type RpcContext, type RpcDefinition } from '@lorawan/api';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { ErrDeadlineExceeded, ErrUnavailable, StackError } from '@lorawan/errors';
import { decode, encode, type RpcReplyEnvelope, type Transport, TRANSPORT, TransportError } from '@lorawan/transport';

export interface ForwardResult {
  body: unknown;
  total?: number;
}

/** Sends a request to the component that owns the RPC and turns the reply back into a result or a StackError. */
@Injectable()
export class RpcForwarder {
  constructor(
    @Inject(TRANSPORT) private readonly transport: Transport,
    @Inject(STACK_CONFIG) private readonly config: StackConfig,
  ) {}

  async forward(rpc: RpcDefinition, body: unknown, ctx: RpcContext): Promise<ForwardResult> {
    const reply = await this.request<RpcReplyEnvelope>(rpc.subject, rpc.component, { ctx, body }, this.config.rpcTimeoutMs);
    if ('error' in reply) throw StackError.fromDetails(reply.error);
    return { body: reply.ok, total: reply.total };
  }

  /** Health of a component, for readiness. */
  async componentHealthy(component: ComponentName, timeoutMs = 2000): Promise<boolean> {
    try {
      const reply = await this.request<{ ok?: { status?: string } }>(healthSubject(component), component, {}, timeoutMs);
      return reply.ok?.status === 'ok';
    } catch {
      return false;
    }
  }

  private async request<T>(subject: string, component: ComponentName, message: unknown, timeoutMs: number): Promise<T> {
    try {
      return decode<T>(await this.transport.request(subject, encode(message), timeoutMs));
    } catch (err) {
      if (err instanceof TransportError) {
        if (err.kind === 'timeout') throw ErrDeadlineExceeded.with({ component, timeout_ms: timeoutMs });
        throw ErrUnavailable.with({ component });
      }
      throw err;
    }
  }
}
