import { Module } from '@nestjs/common';
import { DownlinksModule } from '../downlinks/downlinks.module';
import { EndDevicesModule } from '../end-devices/end-devices.module';
import { FormattersModule } from '../formatters/formatters.module';
import { IntegrationsModule } from '../integrations/integrations.module';
import { LinksModule } from '../links/links.module';
import { DataUplinks } from './data-uplink.service';
import { JoinAccepts } from './join-accept.service';
import { NsAsController } from './ns-as.controller';
import { NsUplinks } from './ns-uplinks.service';
import { SimulateUplinkController } from './simulate-uplink.controller';
import { SimulateUplink } from './simulate-uplink.service';
import { UplinkDecoder } from './uplink-decoder.service';

/**
 * Application messages in: the Network Server's (NsAs.HandleUplink: join-accepts, data uplinks,
 * its reports on downlinks) and simulated ones (AppAs.SimulateUplink), decoded and passed on to
 * the integrations by the ApplicationUpForwarder.
 */
@Module({
  imports: [EndDevicesModule, FormattersModule, LinksModule, IntegrationsModule, DownlinksModule],
  controllers: [NsAsController, SimulateUplinkController],
  providers: [UplinkDecoder, SimulateUplink, JoinAccepts, DataUplinks, NsUplinks],
  exports: [NsUplinks, SimulateUplink],
})
export class UplinksModule {}
