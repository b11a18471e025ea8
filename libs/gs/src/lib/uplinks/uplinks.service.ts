import { Inject, Injectable } from '@nestjs/common';
import { GS_EVENTS, type RpcContext } from '@lorawan/api';
import { AdaptiveLimit, EventPublisher, RpcInvoker, type ShedKind, shedKindLabel, ShedReporter } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { Code, type ErrorDetails, isErrorDetails } from '@lorawan/errors';
import { parsePhyPayload } from '@lorawan/lorawan';
import { gsUplinks, setGsNsInFlightSource } from '@lorawan/observability';
import type { GatewayConnection } from '../connection/gateway-connection';
import { gsContext } from '../context';
import { ErrInvalidPayload, ErrMessageCRC, ErrNetworkServerBusy, ErrNoNetworkServer } from '../errors';
import type { UplinkMessageJson } from '../io/messages';
import { UplinkCoalescer } from './uplink-coalescer';

/** TTS's GS forwards an uplink when the NS answered, and drops it when the NS call failed with one of these (or the NS shed it: ResourceExhausted). */
const DROP_CODES = new Set<number>([
  Code.Canceled,
  Code.DeadlineExceeded,
  Code.Unknown,
  Code.Internal,
  Code.Unimplemented,
  Code.Unavailable,
  Code.ResourceExhausted,
]);

/**
 * Whether the NS refused a frame for its own load, the signal that narrows the GS's calls in flight.
 * A frame it refused because the Application Server pushes back (`application_server_overloaded`,
 * ResourceExhausted too) was answered at once by an NS with room: the NS sheds that share itself,
 * and narrowing the GS's calls for it as well cut the traffic twice (the limit sat at its floor,
 * below what the stack handles, while the AS pushed back).
 */
function nsOverloaded(err: ErrorDetails): boolean {
  return err.code === Code.ResourceExhausted && !(err.namespace === 'pkg/networkserver' && err.name === 'application_server_overloaded');
}

/** The context of the GS's uplink events: the copy's correlation IDs. */
type EventContext = Pick<RpcContext, 'correlation_ids'>;

/** Why the GS does not send a frame: no LoRaWAN PHYPayload, or shed (of this kind). */
type Refusal = { invalid: ErrorDetails } | { shed: ShedKind };

/** The adaptive limit of frames in flight to the NS never goes below this. */
const MIN_IN_FLIGHT = 16;
/**
 * The limit is lowered at most once in this many ms. Once per 100 ms took ~1 s to come down from
 * its ceiling when a burst began (the NS and the AS behind it queued a second of work meanwhile);
 * once per refusal took it to its floor in one congested moment.
 */
const DECREASE_INTERVAL_MS = 50;

/**
 * The one path of every received copy, whatever frontend heard it (TTS `gatewayserver.go`
 * handleUpstream): a CRC failure or a frame that is no LoRaWAN PHYPayload is dropped; copies of
 * one frame from several gateways within GS_UPLINK_COALESCE_MS reach the Network Server in one
 * `GsNs.HandleUplink` call (`UplinkCoalescer`), with every copy's metadata and correlation ID;
 * `gs.up.receive` per copy, then `gs.up.forward`, or `gs.up.drop` naming why.
 *
 * Admission: a frame goes to the NS only while fewer than the adaptive limit of frames are in
 * flight to it (`AdaptiveLimit`, at most GS_NS_MAX_IN_FLIGHT: lowered by a tenth when the NS
 * refused frames as overloaded itself, at most once per 50 ms, not when it refused them for the
 * Application Server; raised by each frame it answered). A
 * frame that finds the limit reached is shed when its first copy arrives, with every copy of it, before anything else is done for it: counted in
 * `lorawan_uplinks_shed_total{component="gs",reason="overloaded"}`, `gs.up.drop` at a bounded rate
 * (`ShedReporter`), no `gs.up.receive`. Join-requests and data uplinks alike: the NS decides by
 * kind how long a frame may wait (its deadlines), the GS only stops sending what it refuses.
 */
@Injectable()
export class UplinksService {
  private readonly coalescer: UplinkCoalescer<ErrorDetails | undefined, Refusal>;
  private readonly inFlight: AdaptiveLimit;
  private readonly shed = new ShedReporter('gs');

  constructor(
    @Inject(STACK_CONFIG) config: StackConfig,
    private readonly rpc: RpcInvoker,
    private readonly events: EventPublisher,
  ) {
    this.coalescer = new UplinkCoalescer(config.gs.uplinkCoalesceMs, (message) => this.forward(message));
    this.inFlight = new AdaptiveLimit({
      min: Math.min(MIN_IN_FLIGHT, config.gs.nsMaxInFlight),
      max: config.gs.nsMaxInFlight,
      decreaseIntervalMs: DECREASE_INTERVAL_MS,
    });
    setGsNsInFlightSource(() => ({ limit: this.inFlight.current, in_flight: this.inFlight.inFlight }));
  }

  /** One received copy of a frame, from a gateway connected through any frontend. */
  async handle(conn: GatewayConnection, message: UplinkMessageJson): Promise<void> {
    const ids = { gateway_ids: conn.ids };
    // The events' context: the copy's correlation IDs (an event has no request ID).
    const ctx = { correlation_ids: message.correlation_ids };
    if (message.crc_status === false) return this.drop(ids, ctx, message, conn, ErrMessageCRC.with().toDetails());
    // Looked at with the first copy of each frame (its other copies are the same bytes): a frame
    // that is no LoRaWAN PHYPayload goes no further (TTS's GS unmarshals it first); one that finds
    // the in-flight limit reached is shed.
    const submitted = this.coalescer.submit(message, () => this.refusal(message.raw_payload));
    if ('refused' in submitted) {
      const { refused, first } = submitted;
      if ('invalid' in refused) return this.drop(ids, ctx, message, conn, refused.invalid);
      gsUplinks.inc({ result: 'dropped' });
      const publish = first ? this.shed.shed(refused.shed, 'overloaded') : this.shed.mayPublish();
      if (publish) this.events.publish(GS_EVENTS.upDrop, ids, { ctx, data: ErrNetworkServerBusy.with({ kind: shedKindLabel(refused.shed) }).toDetails() });
      return;
    }
    this.received(ids, ctx, message, conn);
    const dropped = await submitted.outcome;
    if (dropped) return this.dropped(ids, ctx, dropped);
    gsUplinks.inc({ result: 'forwarded' });
    this.events.publish(GS_EVENTS.upForward, ids, { ctx, data: 'cluster' });
  }

  /** Why a frame is not sent (no LoRaWAN PHYPayload, or shed), else undefined: a place in flight was taken for it. */
  private refusal(rawPayload: string): Refusal | undefined {
    const frame = parsePhyPayload(Buffer.from(rawPayload, 'base64'));
    if ('error' in frame) return { invalid: ErrInvalidPayload.with({ reason: frame.error }).toDetails() };
    if (this.inFlight.tryAcquire()) return undefined;
    return { shed: frame.mhdr.m_type === 'JOIN_REQUEST' ? 'join_request' : 'data_uplink' };
  }

  /** The NS call of one uplink (its copies merged): the error that drops it, else undefined. */
  private async forward(message: UplinkMessageJson): Promise<ErrorDetails | undefined> {
    try {
      await this.rpc.invoke('GsNs.HandleUplink', message, gsContext(message.correlation_ids));
      this.inFlight.release('answered');
    } catch (err) {
      this.inFlight.release(isErrorDetails(err) ? (nsOverloaded(err) ? 'overloaded' : 'answered') : 'failed');
      // As TTS's GS: an answer from the NS (no such device, …) means the NS has it; a failed call (or a busy or absent NS) drops it.
      if (!isErrorDetails(err) || DROP_CODES.has(err.code)) return isErrorDetails(err) ? err : ErrNoNetworkServer.with().toDetails();
    }
    return undefined;
  }

  /** `gs.up.receive` of a copy (with its band). */
  private received(ids: { gateway_ids: GatewayConnection['ids'] }, ctx: EventContext, message: UplinkMessageJson, conn: GatewayConnection): void {
    const bandId = conn.frequency_plan?.band_id;
    this.events.publish(GS_EVENTS.upReceive, ids, { ctx, data: { message, ...(bandId ? { band_id: bandId } : {}) } });
  }

  /** A copy received and dropped by the GS's own checks. */
  private drop(
    ids: { gateway_ids: GatewayConnection['ids'] },
    ctx: EventContext,
    message: UplinkMessageJson,
    conn: GatewayConnection,
    error: ErrorDetails,
  ): void {
    this.received(ids, ctx, message, conn);
    this.dropped(ids, ctx, error);
  }

  private dropped(ids: { gateway_ids: GatewayConnection['ids'] }, ctx: EventContext, error: ErrorDetails): void {
    gsUplinks.inc({ result: 'dropped' });
    // A frame the NS shed (it counted it) is reported at the shed events' bounded rate.
    const shedByNs = error.code === Code.ResourceExhausted || error.code === Code.DeadlineExceeded;
    if (!shedByNs || this.shed.mayPublish()) this.events.publish(GS_EVENTS.upDrop, ids, { ctx, data: error });
  }
}
