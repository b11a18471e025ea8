import { Module } from '@nestjs/common';
import { ApplicationUplinks } from './application-uplinks.service';

/** What the NS tells the Application Server (`NsAs.HandleUplink`): uplinks, join-accepts, downlink reports. */
@Module({
  providers: [ApplicationUplinks],
  exports: [ApplicationUplinks],
})
export class ApplicationUplinksModule {}
