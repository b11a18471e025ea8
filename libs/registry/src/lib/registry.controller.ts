import { Controller, Inject, type Type } from '@nestjs/common';
import {
  type BatchDeleteEndDevicesRequest,
  type BatchSetEndDevicesRequest,
  rpcPattern,
  type DeleteEndDeviceRequest,
  type GetEndDeviceRequest,
  type RpcContext,
  type SetEndDeviceRequest,
} from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { DeviceRegistry } from './device-registry';

export type RegistryService = 'JsEndDeviceRegistry' | 'NsEndDeviceRegistry' | 'AsEndDeviceRegistry';

/** The batch service of a registry (`JsEndDeviceRegistry` → `JsEndDeviceBatchRegistry`). */
type BatchService<S extends RegistryService> = S extends `${infer C}EndDeviceRegistry` ? `${C}EndDeviceBatchRegistry` : never;

/**
 * The RPC handlers of a JS/NS/AS end-device registry (`<Service>.Set|Get|Delete`) and of its batch
 * service (`<C>EndDeviceBatchRegistry.Set|Delete`): each delegates in one line to the component's
 * DeviceRegistry. One definition for the three services, whose operations are identical (the
 * seed: "three registries with identical operation shapes").
 */
export function endDeviceRegistryController<S extends RegistryService>(service: S): Type<unknown> {
  const batch = service.replace('EndDeviceRegistry', 'EndDeviceBatchRegistry') as BatchService<S>;

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

    @MessagePattern(rpcPattern(`${batch}.Set`))
    batchSet(@RpcRequest() req: BatchSetEndDevicesRequest, @RpcCallContext() ctx: RpcContext) {
      return this.registry.batchSet(req, ctx);
    }

    @MessagePattern(rpcPattern(`${batch}.Delete`))
    batchDelete(@RpcRequest() req: BatchDeleteEndDevicesRequest, @RpcCallContext() ctx: RpcContext) {
      return this.registry.batchDelete(req, ctx);
    }
  }
  Object.defineProperty(EndDeviceRegistryController, 'name', { value: `${service}Controller` });
  return EndDeviceRegistryController;
}
