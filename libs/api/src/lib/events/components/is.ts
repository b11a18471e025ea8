import { Right } from '../../rpc/rights';
import { apiKeyEvents, collaboratorEvents, deviceRegistryEvents, entityRegistryEvents } from '../definitions';

/** Identity Server. */
export const IS_EVENTS = {
  endDevice: deviceRegistryEvents('end_device', 'Identity Server'),
  application: entityRegistryEvents('application', [Right.RIGHT_APPLICATION_INFO], { restore: true }),
  applicationApiKey: apiKeyEvents('application', [Right.RIGHT_APPLICATION_SETTINGS_API_KEYS]),
  applicationCollaborator: collaboratorEvents('application', [Right.RIGHT_APPLICATION_SETTINGS_COLLABORATORS, Right.RIGHT_USER_APPLICATIONS_LIST]),
  gateway: entityRegistryEvents('gateway', [Right.RIGHT_GATEWAY_INFO], { restore: true }),
  gatewayApiKey: apiKeyEvents('gateway', [Right.RIGHT_GATEWAY_SETTINGS_API_KEYS]),
  gatewayCollaborator: collaboratorEvents('gateway', [Right.RIGHT_GATEWAY_SETTINGS_COLLABORATORS, Right.RIGHT_USER_GATEWAYS_LIST]),
  user: entityRegistryEvents('user', [Right.RIGHT_USER_INFO]),
  userApiKey: apiKeyEvents('user', [Right.RIGHT_USER_SETTINGS_API_KEYS]),
  /** OAuth clients (TTS `client_registry.go`): no data but the update's field-mask paths, never the secret. */
  client: entityRegistryEvents('client', [Right.RIGHT_CLIENT_INFO], { restore: true }),
  organization: entityRegistryEvents('organization', [Right.RIGHT_ORGANIZATION_INFO], { restore: true }),
  organizationApiKey: apiKeyEvents('organization', [Right.RIGHT_ORGANIZATION_SETTINGS_API_KEYS]),
  clientCollaborator: collaboratorEvents('client', [Right.RIGHT_CLIENT_SETTINGS_COLLABORATORS, Right.RIGHT_USER_CLIENTS_LIST]),
  /** An organization's members (TTS `organization_access.go`). */
  organizationCollaborator: collaboratorEvents('organization', [Right.RIGHT_ORGANIZATION_SETTINGS_MEMBERS, Right.RIGHT_USER_ORGANIZATIONS_LIST]),
};
