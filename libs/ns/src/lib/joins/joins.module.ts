import { Module } from '@nestjs/common';
import { ApplicationUplinksModule } from '../application-uplinks/application-uplinks.module';
import { NsDownlinksModule } from '../downlinks/downlinks.module';
import { NsEndDevicesModule } from '../end-devices/end-devices.module';
import { NsMacModule } from '../mac/mac.module';
import { UplinkCopiesModule } from '../uplinks/uplink-copies.module';
import { JoinRequestService } from './join-request.service';

/** Join-requests: through the Join Server (`NsJs.HandleJoin`) to a join-accept sent by the best gateway. */
@Module({
  imports: [NsEndDevicesModule, NsMacModule, UplinkCopiesModule, NsDownlinksModule, ApplicationUplinksModule],
  providers: [JoinRequestService],
  exports: [JoinRequestService],
})
export class NsJoinsModule {}
