import { Inject, Injectable } from '@nestjs/common';
import type { UplinkMessage } from '@lorawan/api';
import { AdmissionQueue, type Refusal, type ShedKind, shedKindLabel, ShedReporter } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { nsDataUplinks, nsJoins } from '@lorawan/observability';
import { ApplicationUplinks } from '../application-uplinks/application-uplinks.service';
import { ErrApplicationServerOverloaded, ErrOverloaded, ErrUplinkTooLate } from '../errors';
import { gatewayServerTime } from './uplink-copies.service';

/**
 * The Network Server's door for the Gateway Servers' frames: join-requests and data uplinks each
 * have their work slots (NS_JOIN_CONCURRENCY, NS_UPLINK_CONCURRENCY) and a deadline from when the
 * GS received the frame (NS_JOIN_DEADLINE_MS, NS_UPLINK_DEADLINE_MS) by which their handling must
 * start (`AdmissionQueue`). A frame that cannot make it is refused before any of its work (no
 * deduplication round trip, no device read, no Join Server call): `overloaded`
 * (ResourceExhausted, which tells the GS to send fewer) or `uplink_too_late` (DeadlineExceeded),
 * counted in `lorawan_uplinks_shed_total{component="ns"}` and in the kind's result counter; the GS
 * publishes the drop event (the NS knows no device yet).
 *
 * While the Application Server refuses what the NS forwards for load, a share of the data uplinks
 * is refused at the door too (`ApplicationUplinks.pushback`, reason `as_overloaded`): the NS would
 * store them only for the AS to drop them. Join-requests are not: a join-accept is worth more.
 * Those refusals are `application_server_overloaded` (ResourceExhausted, but not the NS's own
 * overload): the GS drops the frame without narrowing its calls in flight, whose limit follows the
 * NS's own load. Narrowed by every one of them, it sat at its floor while the AS pushed back, and
 * the floor's calls (16, each held for the 20 ms coalescing window and the call) carried fewer
 * frames per second than the stack handles.
 */
@Injectable()
export class UplinkAdmission {
  private readonly queues: Record<ShedKind, { queue: AdmissionQueue; deadlineMs: number }>;
  private readonly reporter = new ShedReporter('ns');

  constructor(
    @Inject(STACK_CONFIG) config: StackConfig,
    @Inject(ApplicationUplinks) private readonly applicationUplinks: Pick<ApplicationUplinks, 'pushback'>,
  ) {
    const { ns } = config;
    this.queues = {
      data_uplink: { queue: new AdmissionQueue({ concurrency: ns.uplinkConcurrency }), deadlineMs: ns.uplinkDeadlineMs },
      join_request: { queue: new AdmissionQueue({ concurrency: ns.joinConcurrency }), deadlineMs: ns.joinDeadlineMs },
    };
  }

  /** Runs the frame's handling once admitted, else throws why it was not. */
  run<T>(kind: ShedKind, up: UplinkMessage, task: () => Promise<T>): Promise<T> {
    const receivedAt = gatewayServerTime(up, Date.now());
    const { queue, deadlineMs } = this.queues[kind];
    if (kind === 'data_uplink' && this.applicationUplinks.pushback.refuse()) return Promise.reject(this.refused(kind, 'as_overloaded', receivedAt));
    return queue.run(receivedAt + deadlineMs, task, (reason) => this.refused(kind, reason, receivedAt));
  }

  private refused(kind: ShedKind, reason: Refusal | 'as_overloaded', receivedAt: number): Error {
    this.reporter.shed(kind, reason);
    (kind === 'join_request' ? nsJoins : nsDataUplinks).inc({ result: reason });
    if (reason === 'too_late') return ErrUplinkTooLate.with({ age_ms: Date.now() - receivedAt });
    const details = { kind: shedKindLabel(kind) };
    return reason === 'as_overloaded' ? ErrApplicationServerOverloaded.with(details) : ErrOverloaded.with(details);
  }
}
