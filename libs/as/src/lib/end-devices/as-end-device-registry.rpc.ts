import { Injectable } from '@nestjs/common';
import type { DeleteEndDeviceRequest, GetEndDeviceRequest, SetEndDeviceRequest } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { DeviceRegistry } from '@lorawan/registry';

/** AsEndDeviceRegistry RPC handlers: each delegates in one line. */
@Injectable()
export class AsEndDeviceRegistryRpc {
  constructor(private readonly registry: DeviceRegistry) {}

  @RpcHandler('AsEndDeviceRegistry.Set')
  set(req: SetEndDeviceRequest) {
    return this.registry.set(req);
  }

  @RpcHandler('AsEndDeviceRegistry.Get')
  get(req: GetEndDeviceRequest) {
    return this.registry.get(req);
  }

  @RpcHandler('AsEndDeviceRegistry.Delete')
  delete(req: DeleteEndDeviceRequest) {
    return this.registry.delete(req);
  }
}
