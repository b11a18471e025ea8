import { ALL_ADMIN_RIGHTS, ALL_RIGHTS, type CallerIdentity, impliedRights, type Right } from '@lorawan/api';

/** An admin user's key (or the admin key), or a component calling internally. */
export function isAdminCaller(caller: CallerIdentity | undefined): boolean {
  return caller !== undefined && (caller.universal || caller.is_admin);
}

/** The account (user or organization) behind the caller's key, if it is one's: whose memberships a List shows. */
export function callerAccountId(caller: CallerIdentity | undefined): string | undefined {
  return caller?.owner?.kind === 'user' || caller?.owner?.kind === 'organization' ? caller.owner.id : undefined;
}

/** The user behind the caller's key, if it is a user's key (or the admin key). */
export function callerUserId(caller: CallerIdentity | undefined): string | undefined {
  return caller?.owner?.kind === 'user' ? caller.owner.id : undefined;
}

/**
 * The caller's rights on one entity of a List (TTS `listApplications`: membership rights ∪ the
 * universal rights of admins, as far as the key allows): the rights the caller's account holds as
 * a collaborator (directly or through organizations), implied, plus `ALL_ADMIN_RIGHTS` for
 * admins, intersected with the key's rights.
 */
export function callerRightsOn(caller: CallerIdentity | undefined, collaboratorRights: readonly Right[]): ReadonlySet<Right> {
  if (!caller) return new Set();
  if (caller.universal) return new Set(ALL_RIGHTS);
  const held = impliedRights(collaboratorRights);
  if (caller.is_admin) for (const right of ALL_ADMIN_RIGHTS) held.add(right);
  const key = new Set(caller.key_rights);
  return new Set([...held].filter((right) => key.has(right)));
}
