import { Code, defineError } from '@lorawan/errors';

/** Identity Server errors (TTS namespaces and names, so clients match them). */
export const ErrEndDeviceNotFound = defineError(
  'pkg/identityserver/store',
  'end_device_not_found',
  'end device with id `{device_id}` not found in application with id `{application_id}`',
  Code.NotFound,
);
export const ErrIdTaken = defineError('pkg/util/store', 'id_taken', 'ID already taken, choose a different one and try again', Code.AlreadyExists);
export const ErrAlreadyExists = defineError('pkg/util/store', 'already_exists', 'already exists', Code.AlreadyExists);
export const ErrEndDeviceEUIsTaken = defineError(
  'pkg/identityserver',
  'end_device_euis_taken',
  'an end device with JoinEUI `{join_eui}` and DevEUI `{dev_eui}` is already registered as `{device_id}` in application `{application_id}`',
  Code.AlreadyExists,
);
export const ErrOrderNotInMask = defineError(
  'pkg/identityserver',
  'order_not_in_field_mask',
  'order field `{field}` must be in the field mask',
  Code.InvalidArgument,
);
export const ErrConcurrentUpdate = defineError(
  'pkg/identityserver/store',
  'concurrent_update',
  'end device `{device_id}` was changed concurrently; try again',
  Code.Aborted,
);

// Users, applications, gateways (TTS `pkg/identityserver/store/errors.go`, `pkg/identityserver/*_registry.go`).
export const ErrUserNotFound = defineError('pkg/identityserver/store', 'user_not_found', 'user with id `{user_id}` not found', Code.NotFound);
export const ErrApplicationNotFound = defineError(
  'pkg/identityserver/store',
  'application_not_found',
  'application with id `{application_id}` not found',
  Code.NotFound,
);
export const ErrGatewayNotFound = defineError('pkg/identityserver/store', 'gateway_not_found', 'gateway with id `{gateway_id}` not found', Code.NotFound);
export const ErrClientNotFound = defineError('pkg/identityserver/store', 'client_not_found', 'client with id `{client_id}` not found', Code.NotFound);
/** TTS `RequireAdminForFieldUpdate` (clients' state, endorsement, grants…). */
export const ErrUpdateAdminField = defineError('pkg/identityserver', 'update_admin_field', 'only admins can update the `{field}` field', Code.PermissionDenied);
export const ErrGatewayNotFoundByEUI = defineError(
  'pkg/identityserver/store',
  'gateway_not_found_by_eui',
  'gateway with eui `{gateway_eui}` not found',
  Code.NotFound,
);
export const ErrEntityConcurrentUpdate = defineError(
  'pkg/identityserver/store',
  'concurrent_entity_update',
  '{entity_type} `{entity_id}` was changed concurrently; try again',
  Code.Aborted,
);
export const ErrApplicationHasDevices = defineError(
  'pkg/identityserver',
  'application_has_devices',
  'application still has `{count}` devices',
  Code.FailedPrecondition,
);
/** An organization is deleted only once it collaborates on no live application, gateway or client. */
export const ErrOrganizationHasEntities = defineError(
  'pkg/identityserver',
  'organization_has_entities',
  'organization still collaborates on `{count}` entities',
  Code.FailedPrecondition,
);
export const ErrGatewayEUITaken = defineError(
  'pkg/identityserver',
  'gateway_eui_taken',
  'a gateway with EUI `{gateway_eui}` is already registered (by you or someone else) as `{gateway_id}`',
  Code.AlreadyExists,
);
export const ErrContactNoCollaborator = defineError(
  'pkg/identityserver',
  'contact_no_collaborator',
  'contact `{contact}` is not a collaborator',
  Code.InvalidArgument,
);
export const ErrOrganizationNotFound = defineError(
  'pkg/identityserver/store',
  'organization_not_found',
  'organization with id `{organization_id}` not found',
  Code.NotFound,
);
/** An organization as a member of an organization (TTS `errNestedOrganizations`). */
export const ErrNestedOrganizations = defineError('pkg/identityserver', 'nested_organizations', 'organizations can not be nested', Code.InvalidArgument);
export const ErrReadOnlyField = defineError('pkg/identityserver', 'read_only_field', 'read-only field `{field}`', Code.InvalidArgument);
export const ErrUserUpdateAdminField = defineError(
  'pkg/identityserver',
  'user_update_admin_field',
  'only admins can update the `{field}` field',
  Code.PermissionDenied,
);
export const ErrDeleteBootstrapAdmin = defineError(
  'pkg/identityserver',
  'delete_bootstrap_admin',
  'user `{user_id}` is the bootstrap admin and can not be deleted',
  Code.FailedPrecondition,
);
export const ErrPasswordStrengthMinLength = defineError(
  'pkg/identityserver',
  'password_strength_min_length',
  'need at least `{n}` characters',
  Code.InvalidArgument,
);
export const ErrPasswordStrengthMaxLength = defineError(
  'pkg/identityserver',
  'password_strength_max_length',
  'need at most `{n}` characters',
  Code.InvalidArgument,
);
export const ErrPasswordStrengthUppercase = defineError(
  'pkg/identityserver',
  'password_strength_uppercase',
  'need at least `{n}` uppercase letter(s)',
  Code.InvalidArgument,
);
export const ErrPasswordStrengthDigits = defineError('pkg/identityserver', 'password_strength_digits', 'need at least `{n}` digit(s)', Code.InvalidArgument);

// Gateways' frequency plans (the catalogue of `libs/lorawan`).
export const ErrGatewayFrequencyPlanNotFound = defineError(
  'pkg/identityserver',
  'frequency_plan_not_found',
  'frequency plan `{id}` not found',
  Code.InvalidArgument,
);
/** TTS's GS refuses such a gateway when it connects (`pkg/gatewayserver/io`); the IS refuses to store it. */
export const ErrFrequencyPlansNotFromSameBand = defineError(
  'pkg/gatewayserver/io',
  'frequency_plans_not_from_same_band',
  'frequency plans must be from the same band',
  Code.InvalidArgument,
);
