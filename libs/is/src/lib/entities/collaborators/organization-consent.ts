import { type EntityRef, Right } from '@lorawan/api';
import { rightsErrors } from '@lorawan/component';
import type { VerifiedCredential } from '../../access/credential';
import { rightsGiven } from '../../access/rights-resolver';

/**
 * The right that makes an organization a collaborator of an application, gateway or client (TTS
 * defines it for this; TTS's console checks it, this IS enforces it): nobody attaches an
 * organization without its consent, and who may give that consent may also take the organization
 * off again.
 */
export const CONSENT_RIGHT = Right.RIGHT_ORGANIZATION_ADD_AS_COLLABORATOR;

/**
 * Who asks for a change naming an organization: the caller's credential (resolved again by the IS)
 * and the account whose membership of the organization gives it rights there (`actor`: its user, or
 * none for the organization's own key), read in the change's transaction.
 */
export interface Consenter {
  credential: VerifiedCredential;
  actor?: string;
}

/**
 * Throws `no_organization_rights` / `insufficient_organization_rights` (missing
 * `RIGHT_ORGANIZATION_ADD_AS_COLLABORATOR`) unless the consenter holds the consent right on the
 * organization, given the actor's grant there as the transaction read it.
 */
export function assertConsent(consenter: Consenter, organization: EntityRef, actorGrant: readonly Right[] | undefined): void {
  const held = rightsGiven(consenter.credential, organization, actorGrant ?? []);
  if (held.includes(CONSENT_RIGHT)) return;
  const errors = rightsErrors('organization');
  throw held.length === 0 ? errors.none.with({ uid: organization.id }) : errors.insufficient.with({ uid: organization.id, missing: [CONSENT_RIGHT] });
}
