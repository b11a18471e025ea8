import { type CallerIdentity, fieldSelector, type OrganizationOrUserIdentifiers, type Right } from '@lorawan/api';
import { ErrInsufficientUserRights, ErrNoUserRights } from '@lorawan/component';
import type { UserStore } from '../users/user.model';
import { callerRightsOn, callerUserId, isAdminCaller } from './caller';
import { collaboratorAccount } from './contacts';

/** Always returned, whatever the mask (TTS `getPaths`), and all a List shows of an entry the caller may not see. */
export const DEFAULT_PATHS = ['ids', 'created_at', 'updated_at'] as const;

/**
 * Whose entities a List covers (TTS `listApplications`, `listGateways`): the collaborator the
 * request names, a user or an organization (the RPC table checked the caller's `..._LIST` right on
 * it); a user's include those it reaches through its organizations. Without one,
 * the caller's: every entity for an admin, its user's for a user key (which needs `listRight` on
 * its own user, so the user must be approved), none for an application or gateway key (undefined).
 */
export async function listScope(
  collaborator: OrganizationOrUserIdentifiers | undefined,
  caller: CallerIdentity | undefined,
  listRight: Right,
  users: Pick<UserStore, 'get'>,
): Promise<{ collaborator?: string } | undefined> {
  if (collaborator) return { collaborator: collaboratorAccount(collaborator).id };
  if (isAdminCaller(caller)) return {};
  const userId = callerUserId(caller);
  if (!userId || !caller) return undefined;
  if ((await users.get(userId))?.state !== 'STATE_APPROVED') throw ErrNoUserRights.with({ uid: userId });
  if (!caller.key_rights.includes(listRight)) throw ErrInsufficientUserRights.with({ uid: userId, missing: [listRight] });
  return { collaborator: userId };
}

/**
 * The entries of a List page as the caller may see them: the requested paths where it holds
 * `infoRight` on the entry (see `callerRightsOn`), only the default paths elsewhere (TTS
 * `PublicSafe`), and without the `secrets` paths where it does not hold their right (TTS
 * `listGateways`). `collaboratorRights` are the caller's account's membership rights, by entity ID.
 */
export function visibleEntries<T extends object>(
  entries: readonly T[],
  idOf: (entry: T) => string,
  paths: readonly string[],
  infoRight: Right,
  caller: CallerIdentity | undefined,
  collaboratorRights: ReadonlyMap<string, Right[]>,
  secrets?: { paths: readonly string[]; right: Right },
): Partial<T>[] {
  const full = fieldSelector<T>([...DEFAULT_PATHS, ...paths]);
  const withoutSecrets = secrets ? fieldSelector<T>([...DEFAULT_PATHS, ...paths.filter((p) => !secrets.paths.includes(p))]) : full;
  const reduced = fieldSelector<T>(DEFAULT_PATHS);
  return entries.map((entry) => {
    const rights = callerRightsOn(caller, collaboratorRights.get(idOf(entry)) ?? []);
    if (!rights.has(infoRight)) return reduced(entry);
    return secrets && !rights.has(secrets.right) ? withoutSecrets(entry) : full(entry);
  });
}
