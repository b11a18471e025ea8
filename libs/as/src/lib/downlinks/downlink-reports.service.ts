import { Inject, Injectable, Logger } from '@nestjs/common';
import { type ApplicationDownlink, type ApplicationUpJson, AS_EVENTS, deviceIdentifiers, type EndDeviceIdentifiers, type RpcContext } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { ErrInternal, isStackError } from '@lorawan/errors';
import type { DeviceIds } from '@lorawan/registry';
import type { ApplicationUpSink } from '../integrations/application-integration';
import { ApplicationIntegrations } from '../integrations/application-integrations.service';
import { DOWNLINK_FIELDS, inOrder } from './queue-operation.service';

type Ids = DeviceIds | EndDeviceIdentifiers;

/**
 * What becomes of downlinks handed to the queue, for the application (TTS `observability.go`
 * registerForwardDownlinks, registerDropDownlinks): queued, each item gets a `downlink_queued`
 * ApplicationUp (the item as the application sees it: plaintext FRMPayload, `decoded_payload`)
 * and each item as the NS queued it `as.down.data.forward`; refused, each item gets a
 * `downlink_failed` ApplicationUp (the item and the error) and `as.down.data.drop` (the error).
 * Events carry the item's correlation IDs. The integrations' failures are logged, not raised: the
 * queue operation's own outcome stays the answer.
 */
@Injectable()
export class DownlinkReports {
  private readonly logger = new Logger('DownlinkReports');

  constructor(
    @Inject(EventPublisher) private readonly events: EventPublisher,
    @Inject(ApplicationIntegrations) private readonly sink: ApplicationUpSink,
  ) {}

  /** `identifiers`: whom the events are about; `ids`: the device as the ApplicationUps name it. */
  async queued(identifiers: Ids, ids: Ids, items: ApplicationDownlink[], encrypted: ApplicationDownlink[], receivedAt: string, ctx: RpcContext): Promise<void> {
    for (const item of encrypted) this.events.publish(AS_EVENTS.downDataForward, deviceIdentifiers(identifiers), { ctx: withIds(ctx, item), data: item });
    for (const item of items)
      await this.publishUp({
        end_device_ids: upIdentifiers(ids),
        correlation_ids: idsOf(item),
        received_at: receivedAt,
        downlink_queued: inOrder(item, DOWNLINK_FIELDS),
      });
  }

  async dropped(identifiers: Ids, ids: Ids, items: ApplicationDownlink[], receivedAt: string, err: unknown, ctx: RpcContext): Promise<void> {
    const error = (isStackError(err) ? err : ErrInternal.with()).toDetails();
    for (const item of items) this.events.publish(AS_EVENTS.downDataDrop, deviceIdentifiers(identifiers), { ctx: withIds(ctx, item), data: error });
    for (const item of items) {
      const downlink_failed = { downlink: inOrder(item, DOWNLINK_FIELDS), error };
      await this.publishUp({ end_device_ids: upIdentifiers(ids), correlation_ids: idsOf(item), received_at: receivedAt, downlink_failed });
    }
  }

  /** Hands an ApplicationUp to the integrations; a failure is logged (never the message), not raised. */
  private async publishUp(up: ApplicationUpJson): Promise<void> {
    try {
      await this.sink.publish(up);
    } catch (err) {
      const kind = up.downlink_queued ? 'downlink_queued' : 'downlink_failed';
      const ids = up.end_device_ids;
      this.logger.warn(
        `${kind} of ${ids.application_ids.application_id}.${ids.device_id} not queued for the integrations: ${(err as Error)?.message ?? String(err)}`,
      );
    }
  }
}

function idsOf(item: ApplicationDownlink): string[] {
  return item.correlation_ids ?? [];
}

function withIds(ctx: RpcContext, item: ApplicationDownlink): RpcContext {
  return { ...ctx, correlation_ids: idsOf(item) };
}

/** A device's identifiers as an ApplicationUp's `end_device_ids` (EUIs and DevAddr only when set). */
export function upIdentifiers(ids: Ids): ApplicationUpJson['end_device_ids'] {
  return {
    device_id: ids.device_id,
    application_ids: { application_id: ids.application_ids.application_id },
    ...(ids.dev_eui ? { dev_eui: ids.dev_eui } : {}),
    ...(ids.join_eui ? { join_eui: ids.join_eui } : {}),
    ...(ids.dev_addr ? { dev_addr: ids.dev_addr } : {}),
  };
}
