import { Controller, Inject } from '@nestjs/common';
import { rpcPattern, type ApplicationIdentifiers } from '@lorawan/api';
import { RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { MqttServer } from './mqtt-server.service';

/** AppAs.GetMQTTConnectionInfo (the guard checks RIGHT_APPLICATION_INFO): delegates to the MQTT server. */
@Controller()
export class MqttConnectionInfoController {
  constructor(@Inject(MqttServer) private readonly server: MqttServer) {}

  @MessagePattern(rpcPattern('AppAs.GetMQTTConnectionInfo'))
  get(@RpcRequest() req: ApplicationIdentifiers) {
    return this.server.connectionInfo(req.application_id);
  }
}
