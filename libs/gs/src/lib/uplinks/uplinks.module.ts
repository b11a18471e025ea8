import { Module } from '@nestjs/common';
import { UplinksService } from './uplinks.service';

/** The one uplink path of every frontend: checks, coalescing, `GsNs.HandleUplink`. */
@Module({ providers: [UplinksService], exports: [UplinksService] })
export class UplinksModule {}
