import { Module } from '@nestjs/common';
import { DownlinksModule } from '../../downlinks/downlinks.module';
import { MqttConnectionInfoController } from './mqtt-connection-info.controller';
import { MqttServer } from './mqtt-server.service';

/**
 * The MQTT server (TTS's MQTT Server API): its listeners, its clients' sessions and its downlink
 * entry point (`…/down/push|replace`, through the shared downlink queue); and the connection info
 * it tells clients (`AppAs.GetMQTTConnectionInfo`).
 */
@Module({
  imports: [DownlinksModule],
  controllers: [MqttConnectionInfoController],
  providers: [MqttServer],
  exports: [MqttServer],
})
export class MqttServerModule {}
