import type { Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IDENTITY_DIRECTORY } from '../identity.contracts';
import { ApplicationEntity } from './applications/application.entity';
import { APPLICATION_STORE } from './applications/application.model';
import { APPLICATION_KIND, ApplicationRegistryService } from './applications/application-registry.service';
import { TypeOrmApplicationStore } from './applications/typeorm-application.store';
import { ClientEntity } from './clients/client.entity';
import { CLIENT_STORE } from './clients/client.model';
import { CLIENT_KIND, ClientRegistryService } from './clients/client-registry.service';
import { TypeOrmClientStore } from './clients/typeorm-client.store';
import { CollaboratorEntity } from './collaborators/collaborator.entity';
import { collaboratorAccessController } from './collaborators/collaborator-access.controller';
import { CollaboratorService } from './collaborators/collaborator.service';
import { COLLABORATOR_STORE } from './collaborators/collaborator.model';
import { TypeOrmCollaboratorStore } from './collaborators/typeorm-collaborator.store';
import { GatewayEntity } from './gateways/gateway.entity';
import { GATEWAY_STORE } from './gateways/gateway.model';
import { GATEWAY_KIND, GatewayRegistryService } from './gateways/gateway-registry.service';
import { TypeOrmGatewayStore } from './gateways/typeorm-gateway.store';
import { GatewayEuiController } from './gateways/gateway-eui.controller';
import { IdentityDirectoryService } from './identity-directory.service';
import { collaboratedRegistryController, entityRegistryController } from './registry/entity-registry.controller';
import { OrganizationEntity } from './organizations/organization.entity';
import { ORGANIZATION_STORE } from './organizations/organization.model';
import { ORGANIZATION_KIND, OrganizationRegistryService } from './organizations/organization-registry.service';
import { TypeOrmOrganizationStore } from './organizations/typeorm-organization.store';
import { AdminUserBootstrap } from './users/admin-user.bootstrap';
import { TypeOrmUserStore } from './users/typeorm-user.store';
import { UserEntity } from './users/user.entity';
import { USER_STORE } from './users/user.model';
import { USER_KIND, UserRegistryService } from './users/user-registry.service';

/** Users, applications, gateways and collaborators: TypeORM entity classes and Nest providers. */
export const IDENTITY_ENTITIES: Array<new () => unknown> = [UserEntity, ApplicationEntity, GatewayEntity, ClientEntity, OrganizationEntity, CollaboratorEntity];

const store = <T>(token: symbol, create: (ds: DataSource) => T): Provider => ({ provide: token, inject: [DataSource], useFactory: create });

export const IDENTITY_PROVIDERS: unknown[] = [
  store(USER_STORE, (ds) => new TypeOrmUserStore(ds)),
  store(APPLICATION_STORE, (ds) => new TypeOrmApplicationStore(ds)),
  store(GATEWAY_STORE, (ds) => new TypeOrmGatewayStore(ds)),
  store(CLIENT_STORE, (ds) => new TypeOrmClientStore(ds)),
  store(ORGANIZATION_STORE, (ds) => new TypeOrmOrganizationStore(ds)),
  store(COLLABORATOR_STORE, (ds) => new TypeOrmCollaboratorStore(ds)),
  { provide: IDENTITY_DIRECTORY, useClass: IdentityDirectoryService },
  UserRegistryService,
  AdminUserBootstrap,
  ApplicationRegistryService,
  GatewayRegistryService,
  ClientRegistryService,
  OrganizationRegistryService,
  CollaboratorService,
] satisfies Provider[];
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
