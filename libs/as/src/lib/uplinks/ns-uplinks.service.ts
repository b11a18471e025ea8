import { Inject, Injectable } from '@nestjs/common';
import type { NsApplicationUp, NsAsHandleUplinkRequest, RpcContext } from '@lorawan/api';
import { ErrValidation } from '@lorawan/errors';
import { ErrUpNotSupported } from '../errors';
import { requireUpKind } from './application-up-forwarder.service';
import { JoinAccepts, type NsJoinAccept } from './join-accept.service';

type Empty = Record<string, never>;

/**
 * NsAs.HandleUplink (TTS `grpc.go` HandleUplink, `applicationserver.go` processUp / handleUp): the
 * application messages of the Network Server, handled one after the other, each received now.
 * Join-accepts only, so far (JoinAccepts); every message is checked before any is handled, and a
 * kind the AS does not handle yet refuses the request (`up_not_supported`, Unimplemented).
 *
 * Unlike TTS, whose AS logs a message it could not handle, publishes its drop event and still
 * answers OK, the first failure (unknown device, AppSKey not to be had, integrations unavailable)
 * is the answer, after its `as.up.*.drop` event: the NS then does not report the message as
 * forwarded (`ns.up.join.forward`), and its log says why.
 */
@Injectable()
export class NsUplinks {
  constructor(@Inject(JoinAccepts) private readonly joins: JoinAccepts) {}

  async handle({ application_ups }: NsAsHandleUplinkRequest, ctx: RpcContext): Promise<Empty> {
    const ups = application_ups.map(checked);
    for (const up of ups) await this.joins.handle(up, ctx);
    return {};
  }
}

/** The message as the AS can handle it, or the reason it cannot. */
function checked(up: NsApplicationUp): NsJoinAccept {
  const kind = requireUpKind(up);
  if (kind !== 'join_accept') throw ErrUpNotSupported.with({ kind });
  if (!up.end_device_ids) throw invalid('end_device_ids');
  if (!up.end_device_ids.dev_addr) throw invalid('end_device_ids.dev_addr');
  if (!up.join_accept?.session_key_id) throw invalid('join_accept.session_key_id');
  return up as NsJoinAccept;
}

function invalid(field: string) {
  return ErrValidation.with({ field, name: 'ApplicationUpValidationError', reason: 'value is required' });
}
