import { Module } from '@nestjs/common';
import { ApplicationUplinksModule } from '../application-uplinks/application-uplinks.module';
import { NsDownlinksModule } from '../downlinks/downlinks.module';
import { NsEndDevicesModule } from '../end-devices/end-devices.module';
import { NsJoinsModule } from '../joins/joins.module';
import { NsMacModule } from '../mac/mac.module';
import { DataUplinkService } from './data-uplink.service';
import { UplinkCopiesModule } from './uplink-copies.module';
import { UplinkService } from './uplink.service';
import { UplinksController } from './uplinks.controller';

/** The Gateway Servers' traffic (`GsNs.HandleUplink`, `GsNs.ReportTxAcknowledgment`): join-requests to the joins, data uplinks handled here. */
@Module({
  imports: [NsEndDevicesModule, NsMacModule, UplinkCopiesModule, NsDownlinksModule, NsJoinsModule, ApplicationUplinksModule],
  controllers: [UplinksController],
  providers: [DataUplinkService, UplinkService],
})
export class NsUplinksModule {}
