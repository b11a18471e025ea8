import { Module } from '@nestjs/common';
import { DownlinksModule } from './downlinks/downlinks.module';
import { EndDevicesModule } from './end-devices/end-devices.module';
import { FormattersModule } from './formatters/formatters.module';
import { IntegrationEntryPointsModule } from './integrations/integration-entry-points.module';
import { IntegrationsModule } from './integrations/integrations.module';
import { LinksModule } from './links/links.module';
import { UplinksModule } from './uplinks/uplinks.module';

/**
 * The Application Server: its end devices (AsEndDeviceRegistry, AppSKeys), payload formatters,
 * application links, integrations (webhooks) with their downlink entry points, the downlink
 * queue and the application messages coming in.
 */
@Module({
  imports: [EndDevicesModule, FormattersModule, LinksModule, IntegrationsModule, DownlinksModule, UplinksModule, IntegrationEntryPointsModule],
})
export class AsModule {}
