import { Injectable } from '@nestjs/common';
import type { CreateEndDeviceRequest, DeleteEndDeviceRequest, GetEndDeviceRequest, ListEndDevicesRequest, UpdateEndDeviceRequest } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { EndDeviceRegistryService } from './end-device-registry.service';

/** EndDeviceRegistry RPC handlers: each delegates in one line. */
@Injectable()
export class EndDeviceRegistryRpc {
  constructor(private readonly registry: EndDeviceRegistryService) {}

  @RpcHandler('EndDeviceRegistry.Create')
  create(req: CreateEndDeviceRequest) {
    return this.registry.create(req);
  }

  @RpcHandler('EndDeviceRegistry.Get')
  get(req: GetEndDeviceRequest) {
    return this.registry.get(req);
  }

  @RpcHandler('EndDeviceRegistry.List')
  list(req: ListEndDevicesRequest) {
    return this.registry.list(req);
  }

  @RpcHandler('EndDeviceRegistry.Update')
  update(req: UpdateEndDeviceRequest) {
    return this.registry.update(req);
  }

  @RpcHandler('EndDeviceRegistry.Delete')
  delete(req: DeleteEndDeviceRequest) {
    return this.registry.delete(req);
  }
}
