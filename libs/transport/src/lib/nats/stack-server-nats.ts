import { NatsContext, ServerNats } from '@nestjs/microservices';
import type { Msg, NatsConnection, Subscription } from 'nats';
import type { SubjectRouter, Subscription as StackSubscription } from '../pubsub';
import { RpcDispatcher } from '../rpc/rpc-dispatcher';
import { settleWithin } from '../settle-within';
import type { NatsLink } from './nats-link';

export interface StackServerNatsOptions {
  link: NatsLink;
  /** The component: its queue group, so replicas share the load. */
  component: string;
  /** How long a shutdown waits for requests in flight (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
}

/**
 * @nestjs/microservices' NATS server, adapted to the stack: it serves on the process's shared
 * connection (`NatsLink`), under the subject prefix, in the component's queue group; requests go
 * through the `RpcDispatcher` (log fields, metrics, one bounded reply, in-flight tracking); and
 * `close()` drains gracefully: the subscriptions are drained (the broker stops routing requests
 * here and what it already sent is still served), then it waits up to the grace period for the
 * requests in flight to be answered. The connection itself belongs to the process and is closed
 * after the application.
 */
export class StackServerNats extends ServerNats implements SubjectRouter {
  private readonly dispatcher: RpcDispatcher;
  private readonly stackSubscriptions: Subscription[] = [];

  constructor(private readonly stack: StackServerNatsOptions) {
    super({ queue: stack.component });
    this.dispatcher = new RpcDispatcher(this, stack.component, () => stack.link.maxPayload);
  }

  override createNatsClient(): Promise<NatsConnection> {
    return Promise.resolve(this.stack.link.connection);
  }

  /** Connection status is watched (and logged) once per process, by the NatsLink. */
  override async handleStatusUpdates(): Promise<void> {
    return;
  }

  override bindEvents(client: NatsConnection): void {
    const prefix = this.stack.link.subjectPrefix;
    for (const channel of this.messageHandlers.keys()) {
      const sub = client.subscribe(prefix + channel, {
        queue: this.stack.component,
        callback: (err, msg) => {
          if (!err) void this.handleMessage(channel, msg);
        },
      });
      this.stackSubscriptions.push(sub);
      this.logger.debug?.(`serving ${channel}`);
    }
  }

  /** Serves `subject` (in the component's queue group) with the handler of `pattern`; see SubjectRouter. */
  route(pattern: string, subject: string): StackSubscription {
    if (!this.messageHandlers.has(pattern)) throw new Error(`no handler for ${pattern} to route ${subject} to`);
    const sub = this.stack.link.connection.subscribe(this.stack.link.subjectPrefix + subject, {
      queue: this.stack.component,
      callback: (err, msg) => {
        if (!err) void this.handleMessage(pattern, msg);
      },
    });
    this.stackSubscriptions.push(sub);
    return {
      unsubscribe: () => {
        const i = this.stackSubscriptions.indexOf(sub);
        if (i >= 0) this.stackSubscriptions.splice(i, 1);
        sub.unsubscribe();
      },
    };
  }

  override async handleMessage(channel: string, msg: Msg): Promise<void> {
    // What the process published for the caller to see after the reply goes first (its events).
    const reply = msg.reply
      ? (bytes: Uint8Array) => {
          this.stack.link.replying();
          msg.respond(bytes);
        }
      : undefined;
    await this.dispatcher.dispatch(channel, msg.data, reply, new NatsContext([msg.subject, msg.headers]));
  }

  override async close(): Promise<void> {
    const subs = this.stackSubscriptions.splice(0);
    // Draining needs the broker's acknowledgement; while it is away, unsubscribing is all there is.
    const drained = Promise.all(subs.map((sub) => sub.drain().catch(() => sub.unsubscribe())));
    if (
      !(await settleWithin(
        drained.then(() => true),
        this.stack.shutdownGraceMs,
        false,
      ))
    )
      subs.forEach((sub) => sub.unsubscribe());
    await this.dispatcher.drain(this.stack.shutdownGraceMs);
  }
}
