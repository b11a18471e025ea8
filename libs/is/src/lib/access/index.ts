import type { Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccessInvalidator } from '../access-invalidator';
import { API_KEY_CLEANUP } from '../identity.contracts';
import { ApiKeyEntity } from './api-key.entity';
import { API_KEY_STORE } from './api-key.model';
import { ApiKeyService } from './api-key.service';
import { CredentialVerifier } from './credential-verifier';
import { EntityAccessController } from './entity-access.controller';
import { EntityAccessService } from './entity-access.service';
import { entityAccessController } from './entity-kind-access.controller';
import { RightsResolver } from './rights-resolver';
import { TypeOrmApiKeyStore } from './typeorm-api-key.store';

/** API keys and rights resolution: TypeORM entity classes and Nest providers (filled by the access side). */
export const ACCESS_ENTITIES: Array<new () => unknown> = [ApiKeyEntity];
export const ACCESS_PROVIDERS = [
  { provide: API_KEY_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new TypeOrmApiKeyStore(ds) },
  AccessInvalidator,
  CredentialVerifier,
  RightsResolver,
  EntityAccessService,
  ApiKeyService,
  { provide: API_KEY_CLEANUP, useExisting: ApiKeyService },
] satisfies Provider[];
export const ACCESS_CONTROLLERS = [
  EntityAccessController,
  entityAccessController('application'),
  entityAccessController('gateway'),
  entityAccessController('user'),
  entityAccessController('organization'),
];
