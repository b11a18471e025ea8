import { Controller } from '@nestjs/common';
import {
  rpcPattern,
  type BatchCreateEndDevicesRequest,
  type BatchDeleteEndDevicesRequest,
  type BatchGetEndDevicesRequest,
  type CreateEndDeviceRequest,
  type DeleteEndDeviceRequest,
  type GetEndDeviceRequest,
  type ListEndDevicesRequest,
  type RpcContext,
  type SearchEndDevicesRequest,
  type UpdateEndDeviceRequest,
} from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { EndDeviceRegistryService } from './end-device-registry.service';

/** EndDeviceRegistry, EndDeviceRegistrySearch and EndDeviceBatchRegistry RPC handlers: each delegates in one line. */
@Controller()
export class EndDeviceRegistryController {
  constructor(private readonly registry: EndDeviceRegistryService) {}

  @MessagePattern(rpcPattern('EndDeviceRegistry.Create'))
  create(@RpcRequest() req: CreateEndDeviceRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.create(req, ctx);
  }

  @MessagePattern(rpcPattern('EndDeviceRegistry.Get'))
  get(@RpcRequest() req: GetEndDeviceRequest) {
    return this.registry.get(req);
  }

  @MessagePattern(rpcPattern('EndDeviceRegistry.List'))
  list(@RpcRequest() req: ListEndDevicesRequest) {
    return this.registry.list(req);
  }

  @MessagePattern(rpcPattern('EndDeviceRegistrySearch.SearchEndDevices'))
  search(@RpcRequest() req: SearchEndDevicesRequest) {
    return this.registry.search(req);
  }

  @MessagePattern(rpcPattern('EndDeviceRegistry.Update'))
  update(@RpcRequest() req: UpdateEndDeviceRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.update(req, ctx);
  }

  @MessagePattern(rpcPattern('EndDeviceRegistry.Delete'))
  delete(@RpcRequest() req: DeleteEndDeviceRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.delete(req, ctx);
  }

  @MessagePattern(rpcPattern('EndDeviceBatchRegistry.Get'))
  batchGet(@RpcRequest() req: BatchGetEndDevicesRequest) {
    return this.registry.batchGet(req);
  }

  @MessagePattern(rpcPattern('EndDeviceBatchRegistry.Delete'))
  batchDelete(@RpcRequest() req: BatchDeleteEndDevicesRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.batchDelete(req, ctx);
  }

  @MessagePattern(rpcPattern('EndDeviceBatchRegistry.Create'))
  batchCreate(@RpcRequest() req: BatchCreateEndDevicesRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.batchCreate(req, ctx);
  }
}
