import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module';
import { IDENTITY_CONTROLLERS, IDENTITY_SERVICE_PROVIDERS } from './index';
import { IdentityStoresModule } from './identity-stores.module';

/**
 * The entity registries (users, applications, gateways, clients, organizations) and their
 * collaborators, with their RPC handlers; the access side lends them its rights resolver, API-key
 * cleanup and access invalidation.
 */
@Module({
  imports: [IdentityStoresModule, AccessModule],
  controllers: IDENTITY_CONTROLLERS,
  providers: IDENTITY_SERVICE_PROVIDERS,
})
export class EntitiesModule {}
