import { Module } from '@nestjs/common';
import { ServerModule } from '../server/server.module';
import { ConnectionStatsController } from './connection-stats.controller';
import { ConnectionStatsService } from './connection-stats.service';

/** `Gs.GetGatewayConnectionStats` / `BatchGetGatewayConnectionStats`: the connection stats of the gateways, from whichever replica holds each. */
@Module({ imports: [ServerModule], controllers: [ConnectionStatsController], providers: [ConnectionStatsService] })
export class StatsModule {}
