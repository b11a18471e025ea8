import { Inject, Injectable } from '@nestjs/common';
import { ALL_ADMIN_RIGHTS, type CallerIdentity, type EntityRef, impliedRights, type Right, rightsHeldBy, sortRights } from '@lorawan/api';
import { IDENTITY_DIRECTORY, type IdentityDirectory } from '../identity.contracts';
import { APPROVED, sameEntity, type VerifiedCredential } from './credential';

const REQUESTED = 'STATE_REQUESTED';
const PENDING_USER_RIGHTS: readonly Right[] = ['RIGHT_USER_INFO', 'RIGHT_USER_SETTINGS_BASIC', 'RIGHT_USER_DELETE'];

/**
 * What a verified credential may do on an entity (TTS `pkg/identityserver/rights.go`):
 *
 * - an application, gateway or client key: its own rights of that kind, on its owner only;
 * - an organization key: its rights on the organization itself, and elsewhere what the
 *   organization holds as a collaborator (implied), as far as the key allows;
 * - a user key (and the admin key, the bootstrap admin's user key): the user's membership rights
 *   on the entity (all user rights on itself; elsewhere its collaborator rights and, through each
 *   organization it is a member of, the organization's rights on the entity intersected with the
 *   member's rights on the organization: TTS membership chains), plus `ALL_ADMIN_RIGHTS` when the
 *   user is an admin, intersected with the key's rights and with the rights an entity of that kind
 *   holds (an organization's include those on the entities it collaborates on). A user not in
 *   state APPROVED holds nothing, except that a user awaiting approval (REQUESTED) keeps INFO,
 *   SETTINGS_BASIC and DELETE on itself.
 *
 * An admin's universal rights apply even to an entity that does not exist, so the IS can answer
 * an admin with "not found" while everyone else learns nothing (no rights, 403).
 */
@Injectable()
export class RightsResolver {
  constructor(@Inject(IDENTITY_DIRECTORY) private readonly directory: IdentityDirectory) {}

  /** The caller identity of the credential, with its rights on `entity` when one is given. */
  async callerIdentity(credential: VerifiedCredential, entity?: EntityRef): Promise<CallerIdentity> {
    const caller: CallerIdentity = {
      kind: credential.kind,
      id: credential.id,
      owner: credential.owner,
      is_admin: isAdmin(credential),
      key_rights: keyRights(credential),
      universal: false,
      rights: [],
    };
    // The gateway caches this answer: it must know when the key stops being valid.
    if (credential.expiresAt !== undefined) caller.expires_at = credential.expiresAt;
    if (entity) {
      caller.entity = { kind: entity.kind, id: entity.id };
      caller.rights = await this.rightsOn(credential, entity);
    }
    return caller;
  }

  /** The credential's effective rights on `entity`, implied and sorted; [] for none. */
  async rightsOn(credential: VerifiedCredential, entity: EntityRef): Promise<Right[]> {
    const account = membershipAccount(credential, entity);
    return rightsGiven(credential, entity, account ? await this.directory.collaboratorRights(account, entity) : []);
  }

  /**
   * The credential of a caller the gateway resolved (its rights on the RPC's entity, or on none),
   * for the rights a handler checks itself on other entities: the same key, its user looked up
   * again. Undefined for internal callers (they hold every right).
   */
  async credentialOf(caller: CallerIdentity): Promise<VerifiedCredential | undefined> {
    if (caller.kind === 'internal' || !caller.owner) return undefined;
    const credential: VerifiedCredential = { kind: caller.kind, id: caller.id, owner: caller.owner, keyRights: new Set(caller.key_rights) };
    if (caller.owner.kind === 'user') credential.user = await this.directory.user(caller.owner.id);
    return credential;
  }
}

/**
 * The account whose collaborations give the credential its rights on `entity` (TTS membership):
 * an organization key's organization, on other entities; a user key's user, on entities other
 * than users. Undefined when there is none (an application's or gateway's key; a user on a user).
 */
export function membershipAccount(credential: VerifiedCredential, entity: EntityRef): string | undefined {
  if (credential.owner.kind === 'organization') return sameEntity(credential.owner, entity) ? undefined : credential.owner.id;
  if (credential.owner.kind === 'user' && entity.kind !== 'user') return credential.owner.id;
  return undefined;
}

/**
 * The credential's effective rights on `entity` (see RightsResolver), given what its
 * `membershipAccount` holds there as a collaborator (`membership`, as stored or through chains):
 * pure, so that a transaction can decide on a membership it read itself.
 */
export function rightsGiven(credential: VerifiedCredential, entity: EntityRef, membership: readonly Right[]): Right[] {
  const ofKind = rightsHeldBy(entity.kind);
  const byKey = (held: Iterable<Right>) => {
    const set = new Set(held);
    return sortRights(ofKind.filter((r) => set.has(r) && credential.keyRights.has(r)));
  };
  if (credential.owner.kind === 'organization' && !sameEntity(credential.owner, entity)) return byKey(impliedRights(membership));
  if (credential.owner.kind !== 'user') return sameEntity(credential.owner, entity) ? byKey(ofKind) : [];
  const user = credential.user;
  if (!user) return [];
  if (user.state !== APPROVED) {
    // A user awaiting approval may still see and edit its profile or delete its account (TTS).
    const own = user.state === REQUESTED && entity.kind === 'user' && entity.id === user.user_id ? PENDING_USER_RIGHTS : [];
    return sortRights(own.filter((r) => credential.keyRights.has(r)));
  }
  const held = new Set<Right>();
  if (entity.kind === 'user') {
    if (entity.id === user.user_id) ofKind.forEach((r) => held.add(r));
  } else {
    impliedRights(membership).forEach((r) => held.add(r));
  }
  if (user.admin) ALL_ADMIN_RIGHTS.forEach((r) => held.add(r));
  return byKey(held);
}

/** The owner is an approved admin user. */
export function isAdmin(credential: VerifiedCredential): boolean {
  return credential.user?.admin === true && credential.user.state === APPROVED;
}

/**
 * What the key could ever do: an entity key is bound to its owner, so only rights its owner's kind
 * holds (an organization's reach the entities it collaborates on); a user key reaches every entity
 * the user does, so all its rights.
 */
function keyRights(credential: VerifiedCredential): Right[] {
  const rights = [...credential.keyRights];
  return sortRights(credential.owner.kind === 'user' ? rights : rights.filter((r) => rightsHeldBy(credential.owner.kind).includes(r)));
}
