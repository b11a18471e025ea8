import { Injectable, Logger } from '@nestjs/common';
import type { RequestOf, RpcContext } from '@lorawan/api';
import { RpcInvoker } from '@lorawan/component';
import { isErrorDetails } from '@lorawan/errors';

/** One ApplicationUp of `NsAs.HandleUplink` (a join-accept may carry its AppSKey). */
export type NsApplicationUp = RequestOf<'NsAs.HandleUplink'>['application_ups'][number];

/**
 * What the Network Server tells the Application Server (`NsAs.HandleUplink`, TTS's
 * ApplicationUp): uplinks, join-accepts and reports on downlinks. A refusal or an AS that does not
 * answer is logged (the error's namespace and name, never the message) and reported as false; the
 * caller decides what else it means.
 */
@Injectable()
export class ApplicationUplinks {
  private readonly logger = new Logger('ApplicationUplinks');

  constructor(private readonly rpc: RpcInvoker) {}

  async send(ups: NsApplicationUp[], ctx: RpcContext, log: { device_id: string; what: string }): Promise<boolean> {
    try {
      await this.rpc.invoke('NsAs.HandleUplink', { application_ups: ups }, ctx);
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
