import { Module } from '@nestjs/common';
import { DownlinksController } from './server/downlinks.controller';
import { GatewayServerService } from './server/gateway-server.service';

/** The Gateway Server: Semtech UDP gateways in, uplinks to the Network Server, its downlinks out. No database (connections live in the replica). */
@Module({ controllers: [DownlinksController], providers: [GatewayServerService] })
export class GsModule {}
