import { Module } from '@nestjs/common';
import { NsDownlinksModule } from './downlinks/downlinks.module';
import { NsEndDevicesModule } from './end-devices/end-devices.module';
import { NsJoinsModule } from './joins/joins.module';
import { NsUplinksModule } from './uplinks/uplinks.module';

/**
 * The Network Server: MAC settings and state, network session keys (NsEndDeviceRegistry), and
 * the data plane's uplinks from the Gateway Servers (`GsNs.HandleUplink`: join-requests, through
 * the JS to a join-accept sent by the best gateway), composed of its areas' modules.
 */
@Module({
  imports: [NsEndDevicesModule, NsUplinksModule, NsJoinsModule, NsDownlinksModule],
})
export class NsModule {}
