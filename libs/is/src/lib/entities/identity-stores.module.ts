import { Module } from '@nestjs/common';
import { IsDataModule } from '../is-data.module';
import { IDENTITY_STORE_PROVIDERS, IDENTITY_STORE_TOKENS } from './identity-stores';

/** The entity stores on the IS's database, and the `IdentityDirectory` the access side and the end devices read them through. */
@Module({
  imports: [IsDataModule],
  providers: IDENTITY_STORE_PROVIDERS,
  exports: IDENTITY_STORE_TOKENS,
})
export class IdentityStoresModule {}
