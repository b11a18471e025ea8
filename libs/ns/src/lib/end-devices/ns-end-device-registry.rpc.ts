import { Injectable } from '@nestjs/common';
import type { DeleteEndDeviceRequest, GetEndDeviceRequest, SetEndDeviceRequest } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { DeviceRegistry } from '@lorawan/registry';

/** NsEndDeviceRegistry RPC handlers: each delegates in one line. */
@Injectable()
export class NsEndDeviceRegistryRpc {
  constructor(private readonly registry: DeviceRegistry) {}

  @RpcHandler('NsEndDeviceRegistry.Set')
  set(req: SetEndDeviceRequest) {
    return this.registry.set(req);
  }

  @RpcHandler('NsEndDeviceRegistry.Get')
  get(req: GetEndDeviceRequest) {
    return this.registry.get(req);
  }

  @RpcHandler('NsEndDeviceRegistry.Delete')
  delete(req: DeleteEndDeviceRequest) {
    return this.registry.delete(req);
  }
}
