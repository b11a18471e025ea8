import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { applicationCacheProvider, LINK_CACHE } from '../common/application-cache';
import { EndDevicesModule } from '../end-devices/end-devices.module';
import { ApplicationLinkController } from './application-link.controller';
import { ApplicationLinkRegistry } from './application-link.service';
import { LINK_STORE, type LinkStore, SqlLinkStore } from './application-link.store';

/** The application link (As.GetLink|SetLink|DeleteLink: the application's default formatters), cached per replica. */
@Module({
  imports: [EndDevicesModule],
  controllers: [ApplicationLinkController],
  providers: [
    { provide: LINK_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new SqlLinkStore(ds) },
    applicationCacheProvider(LINK_CACHE, 'link', LINK_STORE, async (store: LinkStore, app) => (await store.get(app))?.link),
    ApplicationLinkRegistry,
  ],
  exports: [ApplicationLinkRegistry],
})
export class LinksModule {}
