import { Module } from '@nestjs/common';
import { GatewayServerService } from './server/gateway-server.service';

/** The Gateway Server: Semtech UDP gateways in, uplinks to the Network Server. No database (connections live in the replica). */
@Module({ providers: [GatewayServerService] })
export class GsModule {}
