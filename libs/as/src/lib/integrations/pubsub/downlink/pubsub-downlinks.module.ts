import { Module } from '@nestjs/common';
import { DownlinksModule } from '../../../downlinks/downlinks.module';
import { PubSubModule } from '../pubsub.module';
import { PubSubDownlinks } from './pubsub-downlinks.service';

/** The Pub/Sub integration's downlink entry point: its connections' downlink topics into the shared downlink queue. */
@Module({
  imports: [PubSubModule, DownlinksModule],
  providers: [PubSubDownlinks],
})
export class PubSubDownlinksModule {}
