import { Inject, Injectable, Logger } from '@nestjs/common';
import { RPCS, type RpcContext } from '@lorawan/api';
import { COMPONENT_RPC_CLIENT } from '@lorawan/component';
import { isErrorDetails } from '@lorawan/errors';
import type { RpcClient } from '@lorawan/transport';

/**
 * What the Network Server tells the Application Server (`NsAs.HandleUplink`, TTS's
 * ApplicationUp): uplinks, join-accepts and reports on downlinks. A refusal or an AS that does not
 * answer is logged (the error's namespace and name, never the message) and reported as false; the
 * caller decides what else it means.
 */
@Injectable()
export class ApplicationUplinks {
  private readonly logger = new Logger('ApplicationUplinks');

  constructor(@Inject(COMPONENT_RPC_CLIENT) private readonly rpc: RpcClient) {}

  async send(ups: Array<Record<string, unknown>>, ctx: RpcContext, log: { device_id: string; what: string }): Promise<boolean> {
    try {
      await this.rpc.call(RPCS['NsAs.HandleUplink'].subject, { ctx, body: { application_ups: ups } });
      return true;
    } catch (err) {
      const reason = isErrorDetails(err) ? `${err.namespace}:${err.name}` : (err as Error).message;
      this.logger.warn(
        { device_id: log.device_id, error: reason, correlation_ids: ctx.correlation_ids },
        `${log.what} not forwarded to the Application Server`,
      );
      return false;
    }
  }
}
