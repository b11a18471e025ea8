import { Injectable, Logger } from '@nestjs/common';
import {
  gatewayDownlinkSubject,
  MAX_NEXT_DOWNLINK_PATHS,
  type NextDownlinkPath,
  RPCS,
  type RequestOf,
  type ResponseOf,
  type RpcContext,
  type TxRequest,
} from '@lorawan/api';
import { RpcInvoker } from '@lorawan/component';
import { type ErrorDetails, isErrorDetails, StackError } from '@lorawan/errors';
import { ErrNoDownlinkPath } from '../errors';

/** `NsGs.ScheduleDownlink`'s answer (TTS `ScheduleDownlinkResponse`). */
export type ScheduledDownlink = ResponseOf<'NsGs.ScheduleDownlink'>;

/** A downlink to schedule, before each gateway's path (and the paths after it) is added. */
export type DownlinkToSchedule = Omit<RequestOf<'NsGs.ScheduleDownlink'>, 'request' | 'next_paths'> & { request: Omit<TxRequest, 'downlink_paths'> };

export type DownlinkPathCandidate = NextDownlinkPath;

/**
 * Hands a downlink to the Gateway Servers (TTS `scheduleDownlinkByPaths`): each path in turn, on
 * its gateway's own subject, so the GS replica the gateway is connected to gets it, until one
 * accepts. Fails with the last Gateway Server's error when none does. Each request names the
 * paths after its own (`next_paths`): should the gateway refuse the transmission later (its TX
 * acknowledgment), the GS hands them back and the NS goes on with them (`TxAcknowledgments`).
 */
@Injectable()
export class GatewayDownlinks {
  private readonly logger = new Logger('GatewayDownlinks');

  constructor(private readonly rpc: RpcInvoker) {}

  async schedule(downlink: DownlinkToSchedule, paths: readonly DownlinkPathCandidate[], ctx: RpcContext): Promise<ScheduledDownlink> {
    let last: ErrorDetails | undefined;
    const subject = RPCS['NsGs.ScheduleDownlink'].subject;
    for (const [i, path] of paths.entries()) {
      const next = paths.slice(i + 1, i + 1 + MAX_NEXT_DOWNLINK_PATHS);
      const request = {
        ...downlink,
        request: { ...downlink.request, downlink_paths: [{ uplink_token: path.uplink_token }] },
        ...(next.length > 0 ? { next_paths: next.map(({ gateway_id, uplink_token }) => ({ gateway_id, uplink_token })) } : {}),
      };
      try {
        return await this.rpc.invoke('NsGs.ScheduleDownlink', request, ctx, { subject: gatewayDownlinkSubject(subject, path.gateway_id) });
      } catch (err) {
        last = isErrorDetails(err) ? err : ErrNoDownlinkPath.with().toDetails();
        this.logger.debug?.(
          { gateway_id: path.gateway_id, error: isErrorDetails(err) ? `${err.namespace}:${err.name}` : (err as Error).message },
          'downlink path refused',
        );
      }
    }
    throw last ? StackError.fromDetails(last) : ErrNoDownlinkPath.with();
  }
}
