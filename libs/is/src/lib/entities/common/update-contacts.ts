import { type EntityRef, hasAnyField, type OrganizationOrUserIdentifiers } from '@lorawan/api';
import { ErrContactNoCollaborator } from '../../errors';
import type { CollaboratorStore } from '../collaborators/collaborator.model';
import { toUserContact, type UserContact } from './contacts';

const CONTACTS = ['administrative_contact', 'technical_contact'] as const;

/**
 * The contacts an Update sets (those in its mask), as stored: each must be a collaborator of the
 * entity (TTS `validateContactIsCollaborator`: `contact_no_collaborator`); an absent one clears it.
 */
export async function requireContactsAreCollaborators(
  collaborators: CollaboratorStore,
  entity: EntityRef,
  source: { administrative_contact?: OrganizationOrUserIdentifiers; technical_contact?: OrganizationOrUserIdentifiers },
  paths: readonly string[],
): Promise<{ administrative_contact?: UserContact; technical_contact?: UserContact }> {
  const out: { administrative_contact?: UserContact; technical_contact?: UserContact } = {};
  for (const field of CONTACTS) {
    if (!hasAnyField(paths, field)) continue;
    const contact = toUserContact(source[field]);
    if (!contact) continue;
    if ((await collaborators.rightsOf(contact.user_ids.user_id, entity)).length === 0)
      throw ErrContactNoCollaborator.with({ contact: contact.user_ids.user_id });
    out[field] = contact;
  }
  return out;
}
