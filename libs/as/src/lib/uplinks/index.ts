import type { Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { applicationCacheProvider, LINK_CACHE } from '../common/application-cache';
import { AppSKeys } from '../end-devices/app-s-keys.service';
import { ApplicationUpForwarder } from '../integrations/application-up-forwarder.service';
import { DataUplinks } from './data-uplink.service';
import { JoinAccepts } from './join-accept.service';
import { ApplicationLinkController } from '../links/application-link.controller';
import { ApplicationLinkRegistry } from '../links/application-link.service';
import { LINK_STORE, type LinkStore, SqlLinkStore } from '../links/application-link.store';
import { NsAsController } from './ns-as.controller';
import { NsUplinks } from './ns-uplinks.service';
import { SimulateUplinkController } from './simulate-uplink.controller';
import { SimulateUplink } from './simulate-uplink.service';
import { UplinkDecoder } from './uplink-decoder.service';

export * from '../links/application-link.store';
export * from '../links/application-link.service';
export * from '../links/link-settings';
export * from './simulate-uplink.service';

/**
 * Application messages: the Network Server's (NsAs.HandleUplink: join-accepts, data uplinks), simulated ones
 * (AppAs.SimulateUplink), both passed on to the integrations by one ApplicationUpForwarder; and the
 * application link (As.GetLink|SetLink|DeleteLink: default formatters).
 */
export const UPLINK_PROVIDERS: Provider[] = [
  { provide: LINK_STORE, inject: [DataSource], useFactory: (ds: DataSource) => new SqlLinkStore(ds) },
  applicationCacheProvider(LINK_CACHE, 'link', LINK_STORE, async (store: LinkStore, app) => (await store.get(app))?.link),
  ApplicationLinkRegistry,
  ApplicationUpForwarder,
  UplinkDecoder,
  SimulateUplink,
  AppSKeys,
  JoinAccepts,
  DataUplinks,
  NsUplinks,
];
export const UPLINK_CONTROLLERS = [ApplicationLinkController, SimulateUplinkController, NsAsController];
