import { ErrValidation } from '@lorawan/errors';
import type { OrganizationOrUserIdentifiers } from '@lorawan/api';
import { ErrContactNoCollaborator, ErrOrganizationsUnsupported } from '../../errors';

/** A contact or collaborator as stored and returned: always a user (organizations are not supported). */
export interface UserContact {
  user_ids: { user_id: string };
}

export function userContact(userId: string): UserContact {
  return { user_ids: { user_id: userId } };
}

/** The user a Create request names as collaborator: organizations are refused, one of the two is required. */
export function collaboratorUserId(collaborator: OrganizationOrUserIdentifiers | undefined): string {
  if (collaborator?.organization_ids) throw ErrOrganizationsUnsupported.with();
  const userId = collaborator?.user_ids?.user_id;
  if (!userId) throw ErrValidation.with({ field: 'collaborator', name: 'OrganizationOrUserIdentifiersValidationError', reason: 'value is required' });
  return userId;
}

/** A contact of a request as stored (undefined clears it); organizations are refused. */
export function toUserContact(contact: OrganizationOrUserIdentifiers | undefined): UserContact | undefined {
  if (!contact) return undefined;
  if (contact.organization_ids) throw ErrOrganizationsUnsupported.with();
  return contact.user_ids ? userContact(contact.user_ids.user_id) : undefined;
}

/**
 * Contacts of a new entity (TTS `createApplication`/`createGateway`): absent ones default to the
 * collaborator; given ones must be the collaborator (`contact_no_collaborator`).
 */
export function creationContacts(
  entity: { administrative_contact?: OrganizationOrUserIdentifiers; technical_contact?: OrganizationOrUserIdentifiers },
  collaboratorId: string,
): { administrative_contact: UserContact; technical_contact: UserContact } {
  const contact = (given: OrganizationOrUserIdentifiers | undefined): UserContact => {
    const stored = toUserContact(given);
    if (stored && stored.user_ids.user_id !== collaboratorId) throw ErrContactNoCollaborator.with({ contact: stored.user_ids.user_id });
    return userContact(collaboratorId);
  };
  return { administrative_contact: contact(entity.administrative_contact), technical_contact: contact(entity.technical_contact) };
}
