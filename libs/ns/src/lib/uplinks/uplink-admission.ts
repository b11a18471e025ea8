import { Inject, Injectable } from '@nestjs/common';
import type { UplinkMessage } from '@lorawan/api';
import { AdmissionQueue, type Refusal, type ShedKind, shedKindLabel, ShedReporter } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { nsDataUplinks, nsJoins } from '@lorawan/observability';
import { ApplicationUplinks } from '../application-uplinks/application-uplinks.service';
import { ErrOverloaded, ErrUplinkTooLate } from '../errors';
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
    return reason === 'too_late' ? ErrUplinkTooLate.with({ age_ms: Date.now() - receivedAt }) : ErrOverloaded.with({ kind: shedKindLabel(kind) });
  }
}
