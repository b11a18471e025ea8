import { Inject, Injectable } from '@nestjs/common';
import { type NsApplicationUp, type NsAsHandleUplinkRequest, plainJson, type RpcContext } from '@lorawan/api';
import { AdmissionQueue, ShedReporter } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { ErrValidation } from '@lorawan/errors';
import { DOWNLINK_RESULT_KINDS, type DownlinkResultKind, DownlinkResults, type NsDownlinkResult } from '../downlinks/downlink-results.service';
import { ErrOverloaded, ErrUpNotSupported } from '../errors';
import { ApplicationUpForwarder, requireUpKind } from '../integrations/application-up-forwarder.service';
import { WebhookLag } from '../integrations/webhooks/delivery/webhook-lag';
import { DataUplinks, type NsDataUplink } from './data-uplink.service';
import { JoinAccepts, type NsJoinAccept } from './join-accept.service';

type Empty = Record<string, never>;
/** A message the AS handles, checked. */
type Checked = { kind: 'join_accept'; up: NsJoinAccept } | { kind: 'uplink_message'; up: NsDataUplink } | { kind: DownlinkResultKind; up: NsDownlinkResult };

/**
 * NsAs.HandleUplink (TTS `grpc.go` HandleUplink, `applicationserver.go` processUp / handleUp): the
 * application messages of the Network Server, handled one after the other in the request's order,
 * each received now: join-accepts (JoinAccepts), data uplinks (DataUplinks) and the reports on
 * downlinks (DownlinkResults: sent, ack, nack, failed, queue invalidated). Every message is
 * checked before any is handled, and a kind the AS does not handle (the NS sends no other)
 * refuses the request (`up_not_supported`, Unimplemented).
 *
 * Uplinks and join-accepts are admitted first (AS_UPLINK_CONCURRENCY at a time, each within
 * AS_UPLINK_DEADLINE_MS of reaching the AS, else refused before any work: `overloaded`,
 * ResourceExhausted, counted in `lorawan_uplinks_shed_total{component="as"}`). While the webhook
 * deliveries are behind (WebhookLag, AS_WEBHOOK_LAG_SHED_MS), a share of the data uplinks is
 * refused the same way at once (`webhooks_behind`): accepting them would only queue them behind
 * the others, every delivery later than the last; join-accepts always go through (a device's
 * session is worth more than one uplink).
 *
 * Unlike TTS, whose AS logs a message it could not handle, publishes its drop event and still
 * answers OK, the first failure (unknown device, AppSKey not to be had, integrations unavailable)
 * is the answer, after its `as.up.*.drop` event: the NS then does not report the message as
 * forwarded (`ns.up.join.forward`, `ns.up.data.forward`), and its log says why.
 */
@Injectable()
export class NsUplinks {
  private readonly admission: AdmissionQueue;
  private readonly deadlineMs: number;
  private readonly reporter = new ShedReporter('as');

  constructor(
    @Inject(JoinAccepts) private readonly joins: JoinAccepts,
    @Inject(DataUplinks) private readonly uplinks: DataUplinks,
    @Inject(DownlinkResults) private readonly downlinks: DownlinkResults,
    @Inject(ApplicationUpForwarder) private readonly upstream: ApplicationUpForwarder,
    @Inject(STACK_CONFIG) config: StackConfig,
    @Inject(WebhookLag) private readonly webhookLag: Pick<WebhookLag, 'refuse'>,
  ) {
    this.admission = new AdmissionQueue({ concurrency: config.as.uplinkConcurrency });
    this.deadlineMs = config.as.uplinkDeadlineMs;
  }

  async handle({ application_ups }: NsAsHandleUplinkRequest, ctx: RpcContext): Promise<Empty> {
    const ups = application_ups.map(checked);
    // Uplinks and join-accepts wait their turn (or are refused at once); the reports on downlinks only update the queue.
    const kind = ups.some((up) => up.kind === 'join_accept') ? 'join_request' : ups.some((up) => up.kind === 'uplink_message') ? 'data_uplink' : undefined;
    if (!kind) return this.handleChecked(ups, ctx);
    const refused = (reason: string) => {
      const err = ErrOverloaded.with({ kind: kind === 'join_request' ? 'join-accept' : 'uplink' });
      // `as.up.*.drop` of the messages refused, at the shed events' bounded rate.
      if (this.reporter.shed(kind, reason)) for (const checkedUp of ups) this.droppedEvent(checkedUp, ctx, err);
      return err;
    };
    if (kind === 'data_uplink' && this.webhookLag.refuse()) throw refused('webhooks_behind');
    return this.admission.run(Date.now() + this.deadlineMs, () => this.handleChecked(ups, ctx), refused);
  }

  /** `as.up.join.drop` / `as.up.data.drop` of a refused message (its identifiers and kind; nothing of it was read). */
  private droppedEvent({ kind, up }: Checked, ctx: RpcContext, err: Error): void {
    if (kind === 'join_accept' || kind === 'uplink_message') this.upstream.droppedKind(kind, { ...plainJson(up.end_device_ids) }, ctx, err);
  }

  private async handleChecked(ups: Checked[], ctx: RpcContext): Promise<Empty> {
    for (const checkedUp of ups) {
      if (checkedUp.kind === 'join_accept') await this.joins.handle(checkedUp.up, ctx);
      else if (checkedUp.kind === 'uplink_message') await this.uplinks.handle(checkedUp.up, ctx);
      else await this.downlinks.handle(checkedUp.kind, checkedUp.up, ctx);
    }
    return {};
  }
}

/** The message as the AS can handle it, or the reason it cannot. */
function checked(up: NsApplicationUp): Checked {
  const kind = requireUpKind(up);
  if (kind !== 'join_accept' && kind !== 'uplink_message' && !isDownlinkResult(kind)) throw ErrUpNotSupported.with({ kind });
  if (!up.end_device_ids) throw invalid('end_device_ids');
  if (isDownlinkResult(kind)) {
    if (kind === 'downlink_failed' && !up.downlink_failed?.downlink) throw invalid('downlink_failed.downlink');
    return { kind, up: up as NsDownlinkResult };
  }
  if (!up.end_device_ids.dev_addr) throw invalid('end_device_ids.dev_addr');
  if (kind === 'join_accept') {
    if (!up.join_accept?.session_key_id) throw invalid('join_accept.session_key_id');
    return { kind, up: up as NsJoinAccept };
  }
  if (!up.uplink_message?.session_key_id) throw invalid('uplink_message.session_key_id');
  return { kind, up: up as NsDataUplink };
}

function isDownlinkResult(kind: string): kind is DownlinkResultKind {
  return (DOWNLINK_RESULT_KINDS as readonly string[]).includes(kind);
}

function invalid(field: string) {
  return ErrValidation.with({ field, name: 'ApplicationUpValidationError', reason: 'value is required' });
}
