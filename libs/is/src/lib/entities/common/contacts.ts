import { ErrValidation } from '@lorawan/errors';
import type { OrganizationOrUserIdentifiers } from '@lorawan/api';
import { ErrContactNoCollaborator } from '../../errors';
import type { AccountRef } from './accounts';

/** A contact or collaborator as stored and returned: a user or an organization (exactly one key). */
export type Contact = { user_ids: { user_id: string } } | { organization_ids: { organization_id: string } };

/** The account's identifiers as the API shows them. */
export function accountContact(account: AccountRef): Contact {
  return account.kind === 'user' ? { user_ids: { user_id: account.id } } : { organization_ids: { organization_id: account.id } };
}

/** The account a contact or collaborator names, if it names one. */
export function contactAccount(ids: OrganizationOrUserIdentifiers | Contact | undefined): AccountRef | undefined {
  if (!ids) return undefined;
  if ('organization_ids' in ids && ids.organization_ids) return { kind: 'organization', id: ids.organization_ids.organization_id };
  if ('user_ids' in ids && ids.user_ids) return { kind: 'user', id: ids.user_ids.user_id };
  return undefined;
}

/** The account a request names as collaborator (a user or an organization): one of the two is required. */
export function collaboratorAccount(collaborator: OrganizationOrUserIdentifiers | undefined, field = 'collaborator'): AccountRef {
  const account = contactAccount(collaborator);
  if (!account) throw ErrValidation.with({ field, name: 'OrganizationOrUserIdentifiersValidationError', reason: 'value is required' });
  return account;
}

/**
 * Contacts of a new entity (TTS `createApplication`/`createGateway`): absent ones default to the
 * collaborator; given ones must be the collaborator (`contact_no_collaborator`).
 */
export function creationContacts(
  entity: { administrative_contact?: OrganizationOrUserIdentifiers; technical_contact?: OrganizationOrUserIdentifiers },
  collaborator: AccountRef,
): { administrative_contact: Contact; technical_contact: Contact } {
  const contact = (given: OrganizationOrUserIdentifiers | undefined): Contact => {
    const account = contactAccount(given);
    if (account && (account.kind !== collaborator.kind || account.id !== collaborator.id)) throw ErrContactNoCollaborator.with({ contact: account.id });
    return accountContact(collaborator);
  };
  return { administrative_contact: contact(entity.administrative_contact), technical_contact: contact(entity.technical_contact) };
}
