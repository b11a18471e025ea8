import { BaseRpcContext, type CustomTransportStrategy, Server } from '@nestjs/microservices';
import type { SubjectRouter, Subscription } from '../pubsub';
import { RpcDispatcher } from '../rpc/rpc-dispatcher';
import type { InProcessBroker } from './in-process-broker';

/** The context of a request served in process: its subject. */
export class InProcessContext extends BaseRpcContext<[string]> {
  getSubject(): string {
    return this.args[0];
  }
}

/**
 * Embedded mode's @nestjs/microservices transport strategy: the component's message patterns
 * served on the in-process broker in the component's queue group, through the same
 * `RpcDispatcher` as the NATS server, with the same graceful close.
 */
export class InProcessServer extends Server implements CustomTransportStrategy, SubjectRouter {
  private readonly dispatcher: RpcDispatcher;
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly broker: InProcessBroker,
    private readonly component: string,
    private readonly shutdownGraceMs: number,
  ) {
    super();
    this.dispatcher = new RpcDispatcher(this, component, () => broker.maxPayload);
  }

  listen(callback: () => void): void {
    for (const channel of this.messageHandlers.keys()) {
      this.logger.debug?.(`serving ${channel}`);
      this.subscriptions.push(
        this.broker.serve(channel, this.component, (payload, reply) => void this.dispatcher.dispatch(channel, payload, reply, new InProcessContext([channel]))),
      );
    }
    callback();
  }

  /** Serves `subject` with the handler of `pattern` (see SubjectRouter). */
  route(pattern: string, subject: string): Subscription {
    if (!this.messageHandlers.has(pattern)) throw new Error(`no handler for ${pattern} to route ${subject} to`);
    const sub = this.broker.serve(
      subject,
      this.component,
      (payload, reply) => void this.dispatcher.dispatch(pattern, payload, reply, new InProcessContext([subject])),
    );
    this.subscriptions.push(sub);
    return {
      unsubscribe: () => {
        const i = this.subscriptions.indexOf(sub);
        if (i >= 0) this.subscriptions.splice(i, 1);
        sub.unsubscribe();
      },
    };
  }

  async close(): Promise<void> {
    for (const sub of this.subscriptions.splice(0)) sub.unsubscribe();
    await this.dispatcher.drain(this.shutdownGraceMs);
  }

  on(): void {
    throw new Error('the in-process transport has no status events');
  }

  unwrap<T>(): T {
    // Boundary: Nest's CustomTransportStrategy.unwrap<T>() lets the caller name the underlying server's type.
    return this.broker as unknown as T;
  }
}
