import { Injectable } from '@nestjs/common';
import type { RpcContext, UplinkMessage } from '@lorawan/api';
import { parsePhyPayload } from '@lorawan/lorawan';
import { ErrDecodePayload, ErrUnsupportedMType } from '../errors';
import { JoinRequestService } from '../joins/join-request.service';
import { DataUplinkService } from './data-uplink.service';

/**
 * `GsNs.HandleUplink` (TTS `grpc_gsns.go` HandleUplink): the frame is parsed and routed by MType.
 * Join-requests go to the join handling, data uplinks to the data uplink handling.
 */
@Injectable()
export class UplinkService {
  constructor(
    private readonly joins: JoinRequestService,
    private readonly data: DataUplinkService,
  ) {}

  async handle(up: UplinkMessage, ctx: RpcContext): Promise<Record<string, never>> {
    const parsed = parsePhyPayload(Buffer.from(up.raw_payload ?? '', 'base64'));
    if ('error' in parsed) throw ErrDecodePayload.with({ reason: parsed.error });
    switch (parsed.mhdr.m_type) {
      case 'JOIN_REQUEST':
        return this.joins.handle(up, parsed.join_request_payload as NonNullable<typeof parsed.join_request_payload>, ctx);
      case 'UNCONFIRMED_UP':
      case 'CONFIRMED_UP':
        return this.data.handle(up, parsed.mhdr.m_type, parsed.mac_payload as NonNullable<typeof parsed.mac_payload>, ctx);
      // Downlink frames are no uplinks; rejoin-requests and proprietary frames are not handled (TTS neither).
      case 'JOIN_ACCEPT':
      case 'UNCONFIRMED_DOWN':
      case 'CONFIRMED_DOWN':
      case 'REJOIN_REQUEST':
      case 'PROPRIETARY':
        throw ErrUnsupportedMType.with({ m_type: parsed.mhdr.m_type });
    }
  }
}
