import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type GetStoredApplicationUpCountRequest, type GetStoredApplicationUpRequest, rpcPattern } from '@lorawan/api';
import { RpcRequest } from '@lorawan/component';
import { StorageQueryService } from './storage-query.service';

/** The ApplicationUpStorage's RPC handlers: each delegates in one line. */
@Controller()
export class StorageController {
  constructor(private readonly storage: StorageQueryService) {}

  @MessagePattern(rpcPattern('ApplicationUpStorage.GetStoredApplicationUp'))
  getStored(@RpcRequest() req: GetStoredApplicationUpRequest) {
    return this.storage.getStored(req);
  }

  @MessagePattern(rpcPattern('ApplicationUpStorage.GetStoredApplicationUpCount'))
  count(@RpcRequest() req: GetStoredApplicationUpCountRequest) {
    return this.storage.count(req);
  }
}
