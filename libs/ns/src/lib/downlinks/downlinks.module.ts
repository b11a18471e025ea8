import { Module } from '@nestjs/common';
import { ApplicationUplinksModule } from '../application-uplinks/application-uplinks.module';
import { NsEndDevicesModule } from '../end-devices/end-devices.module';
import { NsMacModule } from '../mac/mac.module';
import { DataDownlinkService } from './data-downlink.service';
import { AsNsController } from './downlink-queue.controller';
import { NsDownlinkQueue } from './downlink-queue.service';
import { GatewayDownlinks } from './gateway-downlinks.service';
import { TxAcknowledgments } from './tx-acknowledgments.service';

/**
 * Downlinks: the AS's downlink queue (`AsNs.DownlinkQueue*`), class A, B and C data downlinks,
 * their scheduling through the Gateway Servers (`NsGs.ScheduleDownlink`) and the gateways' TX
 * acknowledgments.
 */
@Module({
  imports: [NsEndDevicesModule, NsMacModule, ApplicationUplinksModule],
  controllers: [AsNsController],
  providers: [GatewayDownlinks, NsDownlinkQueue, DataDownlinkService, TxAcknowledgments],
  exports: [GatewayDownlinks, DataDownlinkService, TxAcknowledgments],
})
export class NsDownlinksModule {}
