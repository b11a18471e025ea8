import { Injectable } from '@nestjs/common';
import {
  type BatchGetGatewayConnectionStatsRequest,
  type BatchGetGatewayConnectionStatsResponse,
  checkFieldMaskPaths,
  GATEWAY_CONNECTION_STATS_PATHS,
  gatewayDownlinkSubject,
  type GatewayConnectionStats,
  type GatewayIdentifiers,
  RPCS,
  type RpcContext,
  selectFields,
} from '@lorawan/api';
import { RpcInvoker } from '@lorawan/component';
import { isErrorDetails, StackError } from '@lorawan/errors';
import { gatewayConnectionStats } from '../connection/connection-stats';
import { ErrGatewayNotConnected } from '../errors';
import { GatewayServerService } from '../server/gateway-server.service';

/**
 * `Gs.GetGatewayConnectionStats` and `Gs.BatchGetGatewayConnectionStats` (TTS `grpc.go`): the GS
 * replica that takes a request (rights checked by its guard) answers for the gateways it holds and
 * asks the replica holding each other one on the gateway's own subject
 * (`GsGs.GetGatewayConnectionStats`); no replica holds it: `not_connected` (the batch leaves the
 * gateway out, as TTS).
 */
@Injectable()
export class ConnectionStatsService {
  constructor(
    private readonly server: GatewayServerService,
    private readonly rpc: RpcInvoker,
  ) {}

  /** The stats of a gateway connected to this replica, else `not_connected`. */
  local(ids: GatewayIdentifiers): GatewayConnectionStats {
    const conn = this.server.connectionById(ids.gateway_id);
    if (!conn) throw ErrGatewayNotConnected.with({ gateway_uid: ids.gateway_id });
    return gatewayConnectionStats(conn);
  }

  /** The stats of a gateway connected to any replica, else `not_connected`. */
  async get(ids: GatewayIdentifiers, ctx: RpcContext): Promise<GatewayConnectionStats> {
    if (this.server.connectionById(ids.gateway_id)) return this.local(ids);
    const subject = gatewayDownlinkSubject(RPCS['GsGs.GetGatewayConnectionStats'].subject, ids.gateway_id);
    try {
      return await this.rpc.invoke('GsGs.GetGatewayConnectionStats', { gateway_id: ids.gateway_id }, ctx, { subject });
    } catch (err) {
      // The holding replica's answer (it may have lost the gateway meanwhile: not_connected); no replica answering: none holds it.
      if (isErrorDetails(err)) throw StackError.fromDetails(err);
      throw ErrGatewayNotConnected.with({ gateway_uid: ids.gateway_id });
    }
  }

  /** The stats of each connected gateway of the batch, by gateway ID, with the fields of `field_mask` (all without one). */
  async batch(request: BatchGetGatewayConnectionStatsRequest, ctx: RpcContext): Promise<BatchGetGatewayConnectionStatsResponse> {
    const paths = request.field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, GATEWAY_CONNECTION_STATS_PATHS);
    const ids = [...new Set(request.gateway_ids.map((g) => g.gateway_id))];
    const entries: Record<string, GatewayConnectionStats> = {};
    const answers = await Promise.all(ids.map((gateway_id) => this.get({ gateway_id }, ctx).catch((err: unknown) => notConnected(err))));
    answers.forEach((stats, i) => {
      if (stats) entries[ids[i]] = paths.length > 0 ? selectFields(stats, paths) : stats;
    });
    return { entries };
  }
}

/** Undefined for `not_connected` (a batch leaves the gateway out); any other error is the batch's. */
function notConnected(err: unknown): undefined {
  if (ErrGatewayNotConnected.matches(err)) return undefined;
  throw err;
}
