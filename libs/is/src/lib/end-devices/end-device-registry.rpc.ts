import { Injectable } from '@nestjs/common';
import type { CreateEndDeviceRequest, DeleteEndDeviceRequest, GetEndDeviceRequest, ListEndDevicesRequest, RpcContext, UpdateEndDeviceRequest } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { EndDeviceRegistryService } from './end-device-registry.service';

/** EndDeviceRegistry RPC handlers: each delegates in one line. */
@Injectable()
export class EndDeviceRegistryRpc {
  constructor(private readonly registry: EndDeviceRegistryService) {}

  @RpcHandler('EndDeviceRegistry.Create')
  create(req: CreateEndDeviceRequest, ctx: RpcContext) {
    return this.registry.create(req, ctx);
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
  update(req: UpdateEndDeviceRequest, ctx: RpcContext) {
    return this.registry.update(req, ctx);
  }

  @RpcHandler('EndDeviceRegistry.Delete')
  delete(req: DeleteEndDeviceRequest, ctx: RpcContext) {
    return this.registry.delete(req, ctx);
  }
}
