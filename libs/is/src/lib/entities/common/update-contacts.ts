import { type EntityRef, hasAnyField, type OrganizationOrUserIdentifiers } from '@lorawan/api';
import { ErrContactNoCollaborator } from '../../errors';
import type { CollaboratorStore } from '../collaborators/collaborator.model';
import { accountContact, type Contact, contactAccount } from './contacts';

const CONTACTS = ['administrative_contact', 'technical_contact'] as const;

/**
 * The contacts an Update sets (those in its mask), as stored: each must be a collaborator of the
 * entity, a user or an organization (TTS `validateContactIsCollaborator`: `contact_no_collaborator`);
 * an absent one clears it.
 */
export async function requireContactsAreCollaborators(
  collaborators: CollaboratorStore,
  entity: EntityRef,
  source: { administrative_contact?: OrganizationOrUserIdentifiers; technical_contact?: OrganizationOrUserIdentifiers },
  paths: readonly string[],
): Promise<{ administrative_contact?: Contact; technical_contact?: Contact }> {
  const out: { administrative_contact?: Contact; technical_contact?: Contact } = {};
  for (const field of CONTACTS) {
    if (!hasAnyField(paths, field)) continue;
    const account = contactAccount(source[field]);
    if (!account) continue;
    if ((await collaborators.rightsOf(account.id, entity)).length === 0) throw ErrContactNoCollaborator.with({ contact: account.id });
    out[field] = accountContact(account);
  }
  return out;
}
