import { Module } from '@nestjs/common';
import { DownlinksModule } from './downlinks/downlinks.module';
import { ServerModule } from './server/server.module';

/**
 * The Gateway Server: gateways in through its frontends (`io/<protocol>`: Semtech UDP), uplinks to
 * the Network Server, its downlinks out. No database (connections live in the replica).
 */
@Module({ imports: [ServerModule, DownlinksModule] })
export class GsModule {}
