import { Controller, Inject, type Type } from '@nestjs/common';
import { rpcPattern, type DeleteEndDeviceRequest, type GetEndDeviceRequest, type RpcContext, type SetEndDeviceRequest } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { DeviceRegistry } from './device-registry';

export type RegistryService = 'JsEndDeviceRegistry' | 'NsEndDeviceRegistry' | 'AsEndDeviceRegistry';

/**
 * The RPC handlers of a JS/NS/AS end-device registry (`<Service>.Set|Get|Delete`): each
 * delegates in one line to the component's DeviceRegistry. One definition for the three services,
 * whose operations are identical (the seed: "three registries with identical operation shapes").
 */
export function endDeviceRegistryController(service: RegistryService): Type<unknown> {
  @Controller()
  class EndDeviceRegistryController {
    constructor(@Inject(DeviceRegistry) private readonly registry: DeviceRegistry) {}

    @MessagePattern(rpcPattern(`${service}.Set`))
    set(@RpcRequest() req: SetEndDeviceRequest, @RpcCallContext() ctx: RpcContext) {
      return this.registry.set(req, ctx);
    }

    @MessagePattern(rpcPattern(`${service}.Get`))
    get(@RpcRequest() req: GetEndDeviceRequest) {
      return this.registry.get(req);
    }

    @MessagePattern(rpcPattern(`${service}.Delete`))
    delete(@RpcRequest() req: DeleteEndDeviceRequest, @RpcCallContext() ctx: RpcContext) {
      return this.registry.delete(req, ctx);
    }
  }
  Object.defineProperty(EndDeviceRegistryController, 'name', { value: `${service}Controller` });
  return EndDeviceRegistryController;
}
