import { Code, defineError } from '@lorawan/errors';

/** Errors of the collaborators of applications, gateways, organizations (members) and clients (TTS names: `pkg/identityserver/*_access.go`, `store/errors.go`). */
export const ErrMembershipNotFound = defineError(
  'pkg/identityserver/store',
  'membership_not_found',
  'membership of {account_type} account with id `{account_id}` on {entity_type} entity with id `{entity_id}` not found',
  Code.NotFound,
);
export const ErrApplicationNeedsCollaborator = defineError(
  'pkg/identityserver',
  'application_needs_collaborator',
  'every application needs at least one collaborator with all rights',
  Code.FailedPrecondition,
);
export const ErrGatewayNeedsCollaborator = defineError(
  'pkg/identityserver',
  'gateway_needs_collaborator',
  'every gateway needs at least one collaborator with all rights',
  Code.FailedPrecondition,
);
export const ErrCollaboratorIsContact = defineError(
  'pkg/identityserver',
  'collaborator_is_contact',
  'collaborator `{collaborator_id}` is used as a contact',
  Code.FailedPrecondition,
);
export const ErrOrganizationNeedsCollaborator = defineError(
  'pkg/identityserver',
  'organization_needs_collaborator',
  'every organization needs at least one collaborator with all rights',
  Code.FailedPrecondition,
);
export const ErrClientNeedsCollaborator = defineError(
  'pkg/identityserver',
  'client_needs_collaborator',
  'every client needs at least one collaborator with all rights',
  Code.FailedPrecondition,
);
