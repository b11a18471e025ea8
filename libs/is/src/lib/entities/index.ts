import type { Provider } from '@nestjs/common';
import { ApplicationEntity } from './applications/application.entity';
import { APPLICATION_KIND, ApplicationRegistryService } from './applications/application-registry.service';
import { ClientEntity } from './clients/client.entity';
import { CLIENT_KIND, ClientRegistryService } from './clients/client-registry.service';
import { CollaboratorEntity } from './collaborators/collaborator.entity';
import { collaboratorAccessController } from './collaborators/collaborator-access.controller';
import { CollaboratorService } from './collaborators/collaborator.service';
import { GatewayEntity } from './gateways/gateway.entity';
import { GATEWAY_KIND, GatewayRegistryService } from './gateways/gateway-registry.service';
import { GatewayEuiController } from './gateways/gateway-eui.controller';
import { IDENTITY_STORE_PROVIDERS } from './identity-stores';
import { collaboratedRegistryController, entityRegistryController } from './registry/entity-registry.controller';
import { OrganizationEntity } from './organizations/organization.entity';
import { ORGANIZATION_KIND, OrganizationRegistryService } from './organizations/organization-registry.service';
import { AdminUserBootstrap } from './users/admin-user.bootstrap';
import { UserEntity } from './users/user.entity';
import { USER_KIND, UserRegistryService } from './users/user-registry.service';

/** Users, applications, gateways and collaborators: TypeORM entity classes and Nest providers. */
export const IDENTITY_ENTITIES: Array<new () => unknown> = [UserEntity, ApplicationEntity, GatewayEntity, ClientEntity, OrganizationEntity, CollaboratorEntity];

/** The registries of the entity kinds, their collaborators, and the bootstrap admin. */
export const IDENTITY_SERVICE_PROVIDERS = [
  UserRegistryService,
  AdminUserBootstrap,
  ApplicationRegistryService,
  GatewayRegistryService,
  ClientRegistryService,
  OrganizationRegistryService,
  CollaboratorService,
] satisfies Provider[];

export const IDENTITY_PROVIDERS: Provider[] = [...IDENTITY_STORE_PROVIDERS, ...IDENTITY_SERVICE_PROVIDERS];
export const IDENTITY_CONTROLLERS = [
  entityRegistryController(USER_KIND, UserRegistryService),
  collaboratedRegistryController(APPLICATION_KIND, ApplicationRegistryService),
  collaboratedRegistryController(GATEWAY_KIND, GatewayRegistryService),
  GatewayEuiController,
  collaboratedRegistryController(CLIENT_KIND, ClientRegistryService),
  collaboratedRegistryController(ORGANIZATION_KIND, OrganizationRegistryService),
  collaboratorAccessController('application'),
  collaboratorAccessController('gateway'),
  collaboratorAccessController('client'),
  collaboratorAccessController('organization'),
];
