import { Inject, Injectable } from '@nestjs/common';
import { GS_EVENTS, type RpcContext } from '@lorawan/api';
import { EventPublisher, RpcInvoker } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { Code, type ErrorDetails, isErrorDetails } from '@lorawan/errors';
import { getFrequencyPlan, parsePhyPayload } from '@lorawan/lorawan';
import { gsUplinks } from '@lorawan/observability';
import type { GatewayConnection } from '../connection/gateway-connection';
import { gsContext } from '../context';
import { ErrInvalidPayload, ErrMessageCRC, ErrNoNetworkServer } from '../errors';
import type { UplinkMessageJson } from '../io/messages';
import { UplinkCoalescer } from './uplink-coalescer';

/** TTS's GS forwards an uplink when the NS answered, and drops it when the NS call failed with one of these. */
const DROP_CODES = new Set<number>([Code.Canceled, Code.DeadlineExceeded, Code.Unknown, Code.Internal, Code.Unimplemented, Code.Unavailable]);

/**
 * The one path of every received copy, whatever frontend heard it (TTS `gatewayserver.go`
 * handleUpstream): `gs.up.receive`; a CRC failure or a frame that is no LoRaWAN PHYPayload is
 * dropped; copies of one frame from several gateways within GS_UPLINK_COALESCE_MS reach the
 * Network Server in one `GsNs.HandleUplink` call (`UplinkCoalescer`), with every copy's metadata
 * and correlation ID; then `gs.up.forward`, or `gs.up.drop` naming why.
 */
@Injectable()
export class UplinksService {
  private readonly coalescer: UplinkCoalescer<ErrorDetails | undefined>;

  constructor(
    @Inject(STACK_CONFIG) config: StackConfig,
    private readonly rpc: RpcInvoker,
    private readonly events: EventPublisher,
  ) {
    this.coalescer = new UplinkCoalescer(config.gs.uplinkCoalesceMs, (message) => this.forward(message));
  }

  /** One received copy of a frame, from a gateway connected through any frontend. */
  async handle(conn: GatewayConnection, message: UplinkMessageJson): Promise<void> {
    const ids = { gateway_ids: conn.ids };
    // The events' context: the copy's correlation IDs (an event has no request ID).
    const ctx = { correlation_ids: message.correlation_ids };
    const bandId = getFrequencyPlan(conn.frequency_plan_ids[0] ?? '')?.band_id;
    this.events.publish(GS_EVENTS.upReceive, ids, { ctx, data: { message, ...(bandId ? { band_id: bandId } : {}) } });
    if (message.crc_status === false) return this.drop(ids, ctx, ErrMessageCRC.with().toDetails());
    // A frame that is no LoRaWAN PHYPayload goes no further (TTS's GS unmarshals it first): checked
    // with the first copy of each frame, its other copies are the same bytes.
    const dropped = await this.coalescer.submit(message, () => invalidPayload(message.raw_payload));
    if (dropped) return this.drop(ids, ctx, dropped);
    gsUplinks.inc({ result: 'forwarded' });
    this.events.publish(GS_EVENTS.upForward, ids, { ctx, data: 'cluster' });
  }

  /** The NS call of one uplink (its copies merged): the error that drops it, else undefined. */
  private async forward(message: UplinkMessageJson): Promise<ErrorDetails | undefined> {
    try {
      await this.rpc.invoke('GsNs.HandleUplink', message, gsContext(message.correlation_ids));
    } catch (err) {
      // As TTS's GS: an answer from the NS (no such device, …) means the NS has it; a failed call (or a busy or absent NS) drops it.
      if (!isErrorDetails(err) || DROP_CODES.has(err.code)) return isErrorDetails(err) ? err : ErrNoNetworkServer.with().toDetails();
    }
    return undefined;
  }

  private drop(ids: { gateway_ids: GatewayConnection['ids'] }, ctx: Pick<RpcContext, 'correlation_ids'>, error: ErrorDetails): void {
    gsUplinks.inc({ result: 'dropped' });
    this.events.publish(GS_EVENTS.upDrop, ids, { ctx, data: error });
  }
}

/** Why a received frame is no LoRaWAN PHYPayload; undefined when it is one. */
function invalidPayload(rawPayload: string): ErrorDetails | undefined {
  const frame = parsePhyPayload(Buffer.from(rawPayload, 'base64'));
  return 'error' in frame ? ErrInvalidPayload.with({ reason: frame.error }).toDetails() : undefined;
}
