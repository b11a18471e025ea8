import { Injectable } from '@nestjs/common';
import type { DeleteEndDeviceRequest, GetEndDeviceRequest, SetEndDeviceRequest } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { DeviceRegistry } from '@lorawan/registry';

/** JsEndDeviceRegistry RPC handlers: each delegates in one line. */
@Injectable()
export class JsEndDeviceRegistryRpc {
  constructor(private readonly registry: DeviceRegistry) {}

  @RpcHandler('JsEndDeviceRegistry.Set')
  set(req: SetEndDeviceRequest) {
    return this.registry.set(req);
  }

  @RpcHandler('JsEndDeviceRegistry.Get')
  get(req: GetEndDeviceRequest) {
    return this.registry.get(req);
  }

  @RpcHandler('JsEndDeviceRegistry.Delete')
  delete(req: DeleteEndDeviceRequest) {
    return this.registry.delete(req);
  }
}
