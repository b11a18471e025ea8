import { Inject, Injectable, Logger } from '@nestjs/common';
import { gatewayDownlinkSubject, RPCS, type RpcContext, type ScheduleDownlinkRequest } from '@lorawan/api';
import { COMPONENT_RPC_CLIENT } from '@lorawan/component';
import { type ErrorDetails, isErrorDetails, StackError } from '@lorawan/errors';
import type { RpcClient } from '@lorawan/transport';
import { ErrNoDownlinkPath } from '../errors';

/** `NsGs.ScheduleDownlink`'s answer (TTS `ScheduleDownlinkResponse`). */
export interface ScheduledDownlink {
  delay: string;
  downlink_path: { uplink_token: string };
  rx1?: boolean;
  rx2?: boolean;
}

export interface DownlinkPathCandidate {
  gateway_id: string;
  uplink_token: string;
}

/**
 * Hands a downlink to the Gateway Servers (TTS `scheduleDownlinkByPaths`): each path in turn, on
 * its gateway's own subject, so the GS replica the gateway is connected to gets it, until one
 * accepts. Fails with the last Gateway Server's error when none does.
 */
@Injectable()
export class GatewayDownlinks {
  private readonly logger = new Logger('GatewayDownlinks');

  constructor(@Inject(COMPONENT_RPC_CLIENT) private readonly rpc: RpcClient) {}

  async schedule(
    downlink: Omit<ScheduleDownlinkRequest, 'request'> & { request: Omit<ScheduleDownlinkRequest['request'], 'downlink_paths'> },
    paths: readonly DownlinkPathCandidate[],
    ctx: RpcContext,
  ): Promise<ScheduledDownlink> {
    let last: ErrorDetails | undefined;
    const subject = RPCS['NsGs.ScheduleDownlink'].subject;
    for (const path of paths) {
      const body = { ...downlink, request: { ...downlink.request, downlink_paths: [{ uplink_token: path.uplink_token }] } };
      try {
        return await this.rpc.call<ScheduledDownlink>(gatewayDownlinkSubject(subject, path.gateway_id), { ctx, body });
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
