import { Inject, Injectable, type Type } from '@nestjs/common';
import type { DeleteEndDeviceRequest, GetEndDeviceRequest, RpcContext, SetEndDeviceRequest } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { DeviceRegistry } from './device-registry';

export type RegistryService = 'JsEndDeviceRegistry' | 'NsEndDeviceRegistry' | 'AsEndDeviceRegistry';

/**
 * The RPC handlers of a JS/NS/AS end-device registry (`<Service>.Set|Get|Delete`): each
 * delegates in one line to the component's DeviceRegistry. One definition for the three services,
 * whose operations are identical (the seed: "three registries with identical operation shapes").
 */
export function endDeviceRegistryRpc(service: RegistryService): Type<unknown> {
  @Injectable()
  class EndDeviceRegistryRpc {
    constructor(@Inject(DeviceRegistry) private readonly registry: DeviceRegistry) {}

    @RpcHandler(`${service}.Set`)
    set(req: SetEndDeviceRequest, ctx: RpcContext) {
      return this.registry.set(req, ctx);
    }

    @RpcHandler(`${service}.Get`)
    get(req: GetEndDeviceRequest) {
      return this.registry.get(req);
    }

    @RpcHandler(`${service}.Delete`)
    delete(req: DeleteEndDeviceRequest, ctx: RpcContext) {
      return this.registry.delete(req, ctx);
    }
  }
  Object.defineProperty(EndDeviceRegistryRpc, 'name', { value: `${service}Rpc` });
  return EndDeviceRegistryRpc;
}
