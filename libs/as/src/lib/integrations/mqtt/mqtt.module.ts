import { Module } from '@nestjs/common';
import { MqttIntegration } from './mqtt.integration';

/**
 * The MQTT server's integration (TTS `pkg/applicationserver/io/mqtt`): the broadcast of every
 * application message to the MQTT servers of all AS replicas. The server itself (listeners,
 * sessions, downlinks) is MqttServerModule, an entry point.
 */
@Module({
  providers: [MqttIntegration],
  exports: [MqttIntegration],
})
export class MqttModule {}
