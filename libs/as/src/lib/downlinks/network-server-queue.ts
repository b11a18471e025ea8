import { Inject, Injectable } from '@nestjs/common';
import type { ApplicationDownlink, AsNsApplicationDownlink, EndDeviceIdentifiers, RpcContext } from '@lorawan/api';
import { RpcInvoker } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { ErrDeadlineExceeded, isErrorDetails, StackError } from '@lorawan/errors';
import { RpcTransportError } from '@lorawan/transport';
import { ErrPeerUnavailable } from '../errors';

/** Which NS queue operation: add to the queue, or empty it first. */
export type NsQueueOperation = 'push' | 'replace';

const OPERATIONS = { push: 'AsNs.DownlinkQueuePush', replace: 'AsNs.DownlinkQueueReplace' } as const;

/**
 * The Network Server's downlink queue as the AS reaches it (`AsNs.DownlinkQueuePush|Replace|List`
 * over the transport). The NS's refusal comes back as the StackError it sent (with its details);
 * no NS at all is `pkg/cluster:peer_unavailable` (503, as TTS's AS without an NS peer), no answer
 * in time `pkg/rpc:deadline_exceeded` (504).
 */
@Injectable()
export class NetworkServerQueue {
  constructor(
    @Inject(RpcInvoker) private readonly rpc: RpcInvoker,
    @Inject(STACK_CONFIG) private readonly config: StackConfig,
  ) {}

  async operate(operation: NsQueueOperation, end_device_ids: EndDeviceIdentifiers, downlinks: AsNsApplicationDownlink[], ctx: RpcContext): Promise<void> {
    await this.reached(this.rpc.invoke(OPERATIONS[operation], { end_device_ids, downlinks }, ctx));
  }

  /** The NS's queue of the device (both sessions' downlinks, encrypted). */
  async list(ids: EndDeviceIdentifiers, ctx: RpcContext): Promise<ApplicationDownlink[]> {
    const reply = await this.reached(this.rpc.invoke('AsNs.DownlinkQueueList', ids, ctx));
    return reply?.downlinks ?? [];
  }

  /** The call's answer, or its failure as the AS reports it. */
  private async reached<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (err) {
      if (isErrorDetails(err)) throw StackError.fromDetails(err);
      if (err instanceof RpcTransportError && err.kind === 'timeout') throw ErrDeadlineExceeded.with({ component: 'ns', timeout_ms: this.config.rpcTimeoutMs });
      throw ErrPeerUnavailable.with({ cluster_role: 'NETWORK_SERVER' });
    }
  }
}
