import { Module } from '@nestjs/common';
import { DownlinksController } from './downlinks/downlinks.controller';
import { DownlinksService } from './downlinks/downlinks.service';
import { GatewayServerService } from './server/gateway-server.service';
import { UplinksService } from './uplinks/uplinks.service';

/**
 * The Gateway Server: gateways in through its frontends (`io/<protocol>`: Semtech UDP), uplinks to
 * the Network Server, its downlinks out. No database (connections live in the replica).
 */
@Module({ controllers: [DownlinksController], providers: [GatewayServerService, UplinksService, DownlinksService] })
export class GsModule {}
