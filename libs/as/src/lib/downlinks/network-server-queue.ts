import { Inject, Injectable } from '@nestjs/common';
import { type ApplicationDownlinksJson, type EndDeviceIdentifiers, RPCS, type RpcContext } from '@lorawan/api';
import { COMPONENT_RPC_CLIENT } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { ErrDeadlineExceeded, isErrorDetails, StackError } from '@lorawan/errors';
import { type RpcClient, RpcTransportError } from '@lorawan/transport';
import { ErrPeerUnavailable } from '../errors';

type Json = Record<string, unknown>;

/** Which NS queue operation: add to the queue, or empty it first. */
export type NsQueueOperation = 'push' | 'replace';

const SUBJECTS = {
  push: RPCS['AsNs.DownlinkQueuePush'].subject,
  replace: RPCS['AsNs.DownlinkQueueReplace'].subject,
  list: RPCS['AsNs.DownlinkQueueList'].subject,
} as const;

/**
 * The Network Server's downlink queue as the AS reaches it (`AsNs.DownlinkQueuePush|Replace|List`
 * over the transport). The NS's refusal comes back as the StackError it sent (with its details);
 * no NS at all is `pkg/cluster:peer_unavailable` (503, as TTS's AS without an NS peer), no answer
 * in time `pkg/rpc:deadline_exceeded` (504).
 */
@Injectable()
export class NetworkServerQueue {
  constructor(
    @Inject(COMPONENT_RPC_CLIENT) private readonly rpc: RpcClient,
    @Inject(STACK_CONFIG) private readonly config: StackConfig,
  ) {}

  async operate(operation: NsQueueOperation, end_device_ids: EndDeviceIdentifiers, downlinks: Json[], ctx: RpcContext): Promise<void> {
    await this.call(SUBJECTS[operation], { end_device_ids, downlinks }, ctx);
  }

  /** The NS's queue of the device (both sessions' downlinks, encrypted). */
  async list(ids: EndDeviceIdentifiers, ctx: RpcContext): Promise<Json[]> {
    const reply = (await this.call(SUBJECTS.list, ids, ctx)) as ApplicationDownlinksJson | undefined;
    return reply?.downlinks ?? [];
  }

  private async call(subject: string, body: unknown, ctx: RpcContext): Promise<unknown> {
    try {
      return await this.rpc.call(subject, { ctx, body });
    } catch (err) {
      if (isErrorDetails(err)) throw StackError.fromDetails(err);
      if (err instanceof RpcTransportError && err.kind === 'timeout') throw ErrDeadlineExceeded.with({ component: 'ns', timeout_ms: this.config.rpcTimeoutMs });
      throw ErrPeerUnavailable.with({ cluster_role: 'NETWORK_SERVER' });
    }
  }
}
