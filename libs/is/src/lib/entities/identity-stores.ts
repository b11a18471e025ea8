import type { Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { KeyVault, parseKeks, SecretBox } from '@lorawan/crypto';
import { IDENTITY_DIRECTORY } from '../identity.contracts';
import { APPLICATION_STORE } from './applications/application.model';
import { TypeOrmApplicationStore } from './applications/typeorm-application.store';
import { CLIENT_STORE } from './clients/client.model';
import { TypeOrmClientStore } from './clients/typeorm-client.store';
import { COLLABORATOR_STORE } from './collaborators/collaborator.model';
import { TypeOrmCollaboratorStore } from './collaborators/typeorm-collaborator.store';
import { GATEWAY_STORE } from './gateways/gateway.model';
import { TypeOrmGatewayStore } from './gateways/typeorm-gateway.store';
import { IdentityDirectoryService } from './identity-directory.service';
import { ORGANIZATION_STORE } from './organizations/organization.model';
import { TypeOrmOrganizationStore } from './organizations/typeorm-organization.store';
import { TypeOrmUserStore } from './users/typeorm-user.store';
import { USER_STORE } from './users/user.model';

const store = <T>(token: symbol, create: (ds: DataSource, config: StackConfig) => T): Provider => ({
  provide: token,
  inject: [DataSource, STACK_CONFIG],
  useFactory: create,
});

/** The entity stores and the directory the access side and the end devices read them through. */
export const IDENTITY_STORE_PROVIDERS = [
  store(USER_STORE, (ds) => new TypeOrmUserStore(ds)),
  store(APPLICATION_STORE, (ds) => new TypeOrmApplicationStore(ds)),
  store(GATEWAY_STORE, (ds, config) => new TypeOrmGatewayStore(ds, new SecretBox(new KeyVault(parseKeks(config.keks)), config.kekLabels.is))),
  store(CLIENT_STORE, (ds) => new TypeOrmClientStore(ds)),
  store(ORGANIZATION_STORE, (ds) => new TypeOrmOrganizationStore(ds)),
  store(COLLABORATOR_STORE, (ds) => new TypeOrmCollaboratorStore(ds)),
  { provide: IDENTITY_DIRECTORY, useClass: IdentityDirectoryService },
] satisfies Provider[];
export const IDENTITY_STORE_TOKENS = [USER_STORE, APPLICATION_STORE, GATEWAY_STORE, CLIENT_STORE, ORGANIZATION_STORE, COLLABORATOR_STORE, IDENTITY_DIRECTORY];
