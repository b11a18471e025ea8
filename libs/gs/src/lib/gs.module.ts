import { Module } from '@nestjs/common';
import { DownlinksModule } from './downlinks/downlinks.module';
import { ServerModule } from './server/server.module';
import { StatsModule } from './stats/stats.module';

/**
 * The Gateway Server: gateways in through its frontends (`io/<protocol>`: Semtech UDP), uplinks to
 * the Network Server, its downlinks out, its gateways' connection stats. No database (connections live in the replica).
 */
@Module({ imports: [ServerModule, DownlinksModule, StatsModule] })
export class GsModule {}
