import { Module } from '@nestjs/common';
import { UplinksModule } from '../uplinks/uplinks.module';
import { GatewayServerService } from './gateway-server.service';

/** The Gateway Server's core: its frontends, the gateways connected through them, their lookups and what they report. */
@Module({ imports: [UplinksModule], providers: [GatewayServerService], exports: [GatewayServerService] })
export class ServerModule {}
