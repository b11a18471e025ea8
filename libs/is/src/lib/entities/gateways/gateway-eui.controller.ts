import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type GetGatewayForEUIRequest, type GetGatewayIdentifiersForEUIRequest, rpcPattern, type UpdateGatewayAntennaLocationRequest } from '@lorawan/api';
import { RpcRequest } from '@lorawan/component';
import { GatewayRegistryService } from './gateway-registry.service';

/** The gateway lookups by EUI and the GS's location updates (the registry's other handlers: `collaboratedRegistryController`), each delegating in one line. */
@Controller()
export class GatewayEuiController {
  constructor(private readonly registry: GatewayRegistryService) {}

  @MessagePattern(rpcPattern('GatewayRegistry.GetIdentifiersForEUI'))
  getIdentifiersForEUI(@RpcRequest() req: GetGatewayIdentifiersForEUIRequest) {
    return this.registry.getIdentifiersForEUI(req);
  }

  @MessagePattern(rpcPattern('GsIs.GetGatewayForEUI'))
  forEui(@RpcRequest() req: GetGatewayForEUIRequest) {
    return this.registry.forEui(req);
  }

  @MessagePattern(rpcPattern('GsIs.UpdateGatewayAntennaLocation'))
  updateAntennaLocation(@RpcRequest() req: UpdateGatewayAntennaLocationRequest) {
    return this.registry.updateAntennaLocation(req);
  }
}
