import { Module } from '@nestjs/common';
import { DownlinksModule } from '../../downlinks/downlinks.module';
import { MqttServer } from './mqtt-server.service';

/**
 * The MQTT server (TTS's MQTT Server API): its listeners, its clients' sessions and its downlink
 * entry point (`…/down/push|replace`, through the shared downlink queue).
 */
@Module({
  imports: [DownlinksModule],
  providers: [MqttServer],
  exports: [MqttServer],
})
export class MqttServerModule {}
