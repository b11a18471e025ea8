import { Module } from '@nestjs/common';
import { ServerModule } from '../server/server.module';
import { DownlinksController } from './downlinks.controller';
import { DownlinksService } from './downlinks.service';

/** `NsGs.ScheduleDownlink`: downlinks planned by class and sent through the gateway's frontend. */
@Module({ imports: [ServerModule], controllers: [DownlinksController], providers: [DownlinksService] })
export class DownlinksModule {}
