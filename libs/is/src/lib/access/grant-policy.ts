import { ALL_ADMIN_RIGHTS, type CallerIdentity, type EntityRef, type Right, rightsHeldBy, sortRights } from '@lorawan/api';
import { rightsErrors } from '@lorawan/component';
import { sameEntity } from './credential';

/**
 * No escalation: a key can only be given (or, on update, stripped of) rights its creator holds on
 * the key's entity (TTS `createApplicationAPIKey`: `RequireApplication(ctx, ids, req.Rights...)`).
 *
 * - Rights the entity's kind holds must be among the caller's rights on the entity (implied); an
 *   organization's include those on the entities it collaborates on (`rightsHeldBy`).
 * - Application, gateway and client keys hold rights of their kind only.
 * - A user key may also hold rights on other entities (`RIGHT_APPLICATION_ALL`, `RIGHT_ALL`) — what
 *   of the user's collaborations the key may use — when the caller is that user itself and its own
 *   key holds them; or, as TTS's universal rights reach every user, when the caller is an admin
 *   whose key holds them and they are admin rights (`ALL_ADMIN_RIGHTS`: no `*_ALL`, no device keys
 *   or gateway secrets). Either way the key still reaches only what its user collaborates on, so
 *   an admin can give a new user a working key, but never more than that user holds.
 *
 * Answers the rights the caller may not grant (sorted, [] when all are fine).
 */
export function ungrantableRights(entity: EntityRef, rights: Iterable<Right>, caller: CallerIdentity | undefined): Right[] {
  const ofKind = new Set(rightsHeldBy(entity.kind));
  const held = new Set(caller && sameEntity(caller.entity, entity) ? caller.rights : []);
  const isUserItself = entity.kind === 'user' && sameEntity(caller?.owner, entity);
  const keyRights = new Set(isUserItself ? caller?.key_rights : []);
  if (entity.kind === 'user' && caller?.is_admin) {
    const adminKey = new Set(caller.key_rights);
    for (const right of ALL_ADMIN_RIGHTS) if (adminKey.has(right)) keyRights.add(right);
  }
  const missing = new Set<Right>();
  for (const right of rights) {
    let ok: boolean;
    if (ofKind.has(right)) ok = caller?.universal === true || held.has(right);
    else ok = entity.kind === 'user' && (caller?.universal === true || keyRights.has(right));
    if (!ok) missing.add(right);
  }
  return sortRights(missing);
}

/** Throws `insufficient_<kind>_rights` naming the rights the caller may not grant on the entity. */
export function assertGrantable(entity: EntityRef, rights: Iterable<Right>, caller: CallerIdentity | undefined): void {
  const missing = ungrantableRights(entity, rights, caller);
  if (missing.length > 0) throw rightsErrors(entity.kind).insufficient.with({ uid: entity.id, missing });
}
