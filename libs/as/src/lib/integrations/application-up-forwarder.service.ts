import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type ApplicationUp,
  type ApplicationUpJson,
  type ApplicationUpKind,
  APPLICATION_UP_KINDS,
  applicationUpKind,
  AS_EVENTS,
  deviceIdentifiers,
  type EventDefinition,
  newUlid,
  type RpcContext,
} from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { ErrInternal, ErrValidation, isStackError } from '@lorawan/errors';
import { ErrPublishUp } from '../errors';
import type { ApplicationUpSink } from './application-integration';
import { ApplicationIntegrations } from './application-integrations.service';

/** The events of the kinds TTS publishes them for (`observability.go` registerReceiveUp/DropUp/ForwardUp): the NS's downlink reports have a forward event only. */
const UP_EVENTS: Partial<Record<ApplicationUpKind, { receive?: EventDefinition; drop?: EventDefinition; forward: EventDefinition }>> = {
  uplink_message: { receive: AS_EVENTS.upDataReceive, drop: AS_EVENTS.upDataDrop, forward: AS_EVENTS.upDataForward },
  join_accept: { receive: AS_EVENTS.upJoinReceive, drop: AS_EVENTS.upJoinDrop, forward: AS_EVENTS.upJoinForward },
  downlink_queue_invalidated: { forward: AS_EVENTS.downDataQueueInvalidatedForward },
  downlink_failed: { forward: AS_EVENTS.downDataFailedForward },
  downlink_sent: { forward: AS_EVENTS.downDataSentForward },
  downlink_ack: { forward: AS_EVENTS.downDataAckForward },
  downlink_nack: { forward: AS_EVENTS.downDataNackForward },
};

/**
 * How the AS passes an application message (ApplicationUp) on to its integrations, whoever made
 * it (the NS through `NsAs.HandleUplink`, a user through `AppAs.SimulateUplink`); TTS
 * `applicationserver.go` processUp and `observability.go`. The message gets its correlation IDs
 * (its own, the call's, `as:up:<ULID>`), which its events carry; `as.up.<join|data>.receive` when
 * it arrives, `.drop` (data: the error) when it goes no further, `.forward` (data: the message)
 * once the integrations have it durably queued (all of them, ApplicationIntegrations: each on its
 * own, see there); the NS's downlink reports only
 * `as.down.data.<sent|ack|nack|failed|queue.invalidated>.forward`. An integration that cannot take
 * it makes it a drop and the caller's error. Other kinds have no events.
 */
@Injectable()
export class ApplicationUpForwarder {
  private readonly logger = new Logger('ApplicationUps');

  constructor(
    @Inject(EventPublisher) private readonly events: EventPublisher,
    @Inject(ApplicationIntegrations) private readonly sink: ApplicationUpSink,
  ) {}

  /** Gives the message the call's correlation IDs and `as:up:<ULID>`; returns the context of its events. */
  correlate(up: ApplicationUpJson, ctx: RpcContext): RpcContext {
    up.correlation_ids = [...new Set([...(up.correlation_ids ?? []), ...ctx.correlation_ids, `as:up:${newUlid()}`])];
    return { ...ctx, correlation_ids: up.correlation_ids };
  }

  /** `as.up.*.receive`, about the message's device (as its `end_device_ids` name it now). */
  received(up: ApplicationUpJson, ctx: RpcContext): void {
    const event = upEvents(up)?.receive;
    if (event) this.events.publish(event, deviceIdentifiers(up.end_device_ids), { ctx });
  }

  /** `as.up.*.drop` with the error (anything but a StackError shows as `pkg/errors:internal`). */
  dropped(up: ApplicationUpJson, ctx: RpcContext, err: unknown): void {
    const kind = applicationUpKind(up);
    if (kind) this.droppedKind(kind, up.end_device_ids, ctx, err);
  }

  /** `as.up.*.drop` of a message of `kind` known by its device's identifiers only (refused before it was read). */
  droppedKind(kind: ApplicationUpKind, ids: ApplicationUpJson['end_device_ids'], ctx: RpcContext, err: unknown): void {
    const event = UP_EVENTS[kind]?.drop;
    const details = (isStackError(err) ? err : ErrInternal.with()).toDetails();
    if (event) this.events.publish(event, deviceIdentifiers(ids), { ctx, data: details });
  }

  /** Hands the message to the integrations, then `as.up.*.forward`; if they cannot queue it: `as.up.*.drop` and the error. */
  async forward(up: ApplicationUpJson, ctx: RpcContext): Promise<void> {
    try {
      await this.sink.publish(up);
    } catch (cause) {
      const err = isStackError(cause) ? cause : ErrPublishUp.with({ reason: (cause as Error)?.message ?? String(cause) });
      const ids = up.end_device_ids;
      this.logger.warn(
        {
          device_uid: `${ids.application_ids.application_id}.${ids.device_id}`,
          kind: applicationUpKind(up),
          correlation_ids: up.correlation_ids,
          error: err.message,
        },
        'application message not queued for the integrations',
      );
      this.dropped(up, ctx, err);
      throw err;
    }
    const event = upEvents(up)?.forward;
    if (event) this.events.publish(event, deviceIdentifiers(up.end_device_ids), { ctx, data: up });
  }
}

/** The kind of a message: exactly one of ApplicationUp's `up` oneof (TTS validation: `up` is required). */
export function requireUpKind(up: ApplicationUp): ApplicationUpKind {
  const set = APPLICATION_UP_KINDS.filter((k) => up[k] !== undefined && up[k] !== null);
  if (set.length === 1) return set[0];
  const reason = set.length === 0 ? 'value is required' : `only one of ${set.map((k) => `\`${k}\``).join(', ')} may be set`;
  throw ErrValidation.with({ field: 'up', name: 'ApplicationUpValidationError', reason });
}

function upEvents(up: ApplicationUpJson) {
  const kind = applicationUpKind(up);
  return kind && UP_EVENTS[kind];
}
