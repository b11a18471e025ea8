import { Module } from '@nestjs/common';
import { EndDevicesModule } from '../end-devices/end-devices.module';
import { FormattersModule } from '../formatters/formatters.module';
import { IntegrationsModule } from '../integrations/integrations.module';
import { LinksModule } from '../links/links.module';
import { DownlinkPayloads } from './downlink-payloads.service';
import { DownlinkQueue } from './downlink-queue.service';
import { DownlinkReports } from './downlink-reports.service';
import { DownlinkResults } from './downlink-results.service';
import { AppAsController } from './downlinks.controller';
import { NetworkServerQueue } from './network-server-queue';
import { DownlinkQueueOperation } from './queue-operation.service';

/**
 * The downlink queue (held by the Network Server, AsNs.DownlinkQueue*): the operations the
 * integrations' downlink entry points and AppAs.DownlinkQueuePush|Replace|List share, their
 * reports to the integrations, and the Network Server's reports on downlinks (DownlinkResults).
 */
@Module({
  imports: [EndDevicesModule, FormattersModule, LinksModule, IntegrationsModule],
  controllers: [AppAsController],
  providers: [NetworkServerQueue, DownlinkPayloads, DownlinkReports, DownlinkQueueOperation, DownlinkQueue, DownlinkResults],
  exports: [DownlinkQueue, DownlinkPayloads, DownlinkQueueOperation, DownlinkReports, DownlinkResults],
})
export class DownlinksModule {}
