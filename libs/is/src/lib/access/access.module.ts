import { Module } from '@nestjs/common';
import { AccessInvalidator } from '../access-invalidator';
import { IdentityStoresModule } from '../entities/identity-stores.module';
import { API_KEY_CLEANUP } from '../identity.contracts';
import { IsDataModule } from '../is-data.module';
import { ACCESS_CONTROLLERS, ACCESS_PROVIDERS } from './index';
import { RightsResolver } from './rights-resolver';

/**
 * API keys, credentials and rights (`<Entity>Access`, `EntityAccess`): what the entity registries
 * use of it is exported: the rights resolver, API-key cleanup and access invalidation.
 */
@Module({
  imports: [IsDataModule, IdentityStoresModule],
  controllers: ACCESS_CONTROLLERS,
  providers: ACCESS_PROVIDERS,
  exports: [AccessInvalidator, RightsResolver, API_KEY_CLEANUP],
})
export class AccessModule {}
