import { Injectable, Logger } from '@nestjs/common';
import type { RequestOf, RpcContext } from '@lorawan/api';
import { Pushback, RpcInvoker } from '@lorawan/component';
import { Code, type ErrorDetails, isErrorDetails } from '@lorawan/errors';
import { LogSampler } from '@lorawan/observability';

/** One ApplicationUp of `NsAs.HandleUplink` (a join-accept may carry its AppSKey). */
export type NsApplicationUp = RequestOf<'NsAs.HandleUplink'>['application_ups'][number];

/**
 * What the Network Server tells the Application Server (`NsAs.HandleUplink`, TTS's
 * ApplicationUp): uplinks, join-accepts and reports on downlinks. A refusal or an AS that does not
 * answer is logged (the error's namespace and name, never the message) and reported as false; the
 * caller decides what else it means.
 *
 * The AS refusing messages for load (`pkg/applicationserver:overloaded`: its admission, or its
 * webhooks behind; no other error, so that nothing one tenant's messages cause, such as its
 * formatters' limits, can make the NS refuse other tenants' uplinks) raises the share of new data uplinks the NS refuses at its door (`pushback`, read by
 * UplinkAdmission), each answer lowers it: the work the AS would refuse is then not done at all,
 * and the GS, refused in turn, sheds at its own door. Those refusals are logged once every 10 s
 * with how many there were (the AS counts them in `lorawan_uplinks_shed_total`).
 */
@Injectable()
export class ApplicationUplinks {
  private readonly logger = new Logger('ApplicationUplinks');
  private readonly overloadLogs = new LogSampler();
  readonly pushback = new Pushback();

  constructor(private readonly rpc: RpcInvoker) {}

  async send(ups: NsApplicationUp[], ctx: RpcContext, log: { device_id: string; what: string }): Promise<boolean> {
    try {
      await this.rpc.invoke('NsAs.HandleUplink', { application_ups: ups }, ctx);
      this.pushback.answered();
      return true;
    } catch (err) {
      const reason = isErrorDetails(err) ? `${err.namespace}:${err.name}` : (err as Error).message;
      if (isErrorDetails(err) && isAsOverloaded(err)) {
        this.pushback.refused();
        const held = this.overloadLogs.sample(reason);
        if (held !== undefined)
          this.logger.warn(
            { error: reason, refused_before: held, correlation_ids: ctx.correlation_ids },
            `${log.what} not forwarded: the Application Server is overloaded`,
          );
        return false;
      }
      if (isErrorDetails(err)) this.pushback.answered();
      this.logger.warn(
        { device_id: log.device_id, error: reason, correlation_ids: ctx.correlation_ids },
        `${log.what} not forwarded to the Application Server`,
      );
      return false;
    }
  }
}

/** The AS's refusal for load (its `ErrOverloaded`). */
function isAsOverloaded(err: ErrorDetails): boolean {
  return err.code === Code.ResourceExhausted && err.namespace === 'pkg/applicationserver' && err.name === 'overloaded';
}
