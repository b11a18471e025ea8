import type { Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccessInvalidator } from '../access-invalidator';
import { API_KEY_CLEANUP } from '../identity.contracts';
import { ApiKeyEntity } from './api-key.entity';
import { API_KEY_STORE } from './api-key.model';
import { ApiKeyService } from './api-key.service';
import { ApplicationAccessRpc } from './application-access.rpc';
import { CredentialVerifier } from './credential-verifier';
import { EntityAccessRpc } from './entity-access.rpc';
import { EntityAccessService } from './entity-access.service';
import { GatewayAccessRpc } from './gateway-access.rpc';
import { RightsResolver } from './rights-resolver';
import { TypeOrmApiKeyStore } from './typeorm-api-key.store';
import { UserAccessRpc } from './user-access.rpc';

/** API keys and rights resolution: TypeORM entity classes and Nest providers (filled by the access side). */
export const ACCESS_ENTITIES: Array<new () => unknown> = [ApiKeyEntity];
export const ACCESS_PROVIDERS: unknown[] = [
  { provide: API_KEY_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new TypeOrmApiKeyStore(ds) },
  AccessInvalidator,
  CredentialVerifier,
  RightsResolver,
  EntityAccessService,
  ApiKeyService,
  { provide: API_KEY_CLEANUP, useExisting: ApiKeyService },
  EntityAccessRpc,
  ApplicationAccessRpc,
  GatewayAccessRpc,
  UserAccessRpc,
] satisfies Provider[];
