import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import {
  type ApplicationPackageAssociationIdentifiers,
  type ApplicationPackageDefaultAssociationIdentifiers,
  type EndDeviceIdentifiers,
  type GetApplicationPackageAssociationRequest,
  type GetApplicationPackageDefaultAssociationRequest,
  type ListApplicationPackageAssociationRequest,
  type ListApplicationPackageDefaultAssociationRequest,
  rpcPattern,
  type SetApplicationPackageAssociationRequest,
  type SetApplicationPackageDefaultAssociationRequest,
} from '@lorawan/api';
import { RpcRequest } from '@lorawan/component';
import { PackageRegistryService } from './package-registry.service';

/** The ApplicationPackageRegistry's RPC handlers: each delegates in one line. */
@Controller()
export class PackageRegistryController {
  constructor(private readonly registry: PackageRegistryService) {}

  @MessagePattern(rpcPattern('ApplicationPackageRegistry.List'))
  list(@RpcRequest() req: EndDeviceIdentifiers) {
    return this.registry.list(req);
  }

  @MessagePattern(rpcPattern('ApplicationPackageRegistry.GetAssociation'))
  getAssociation(@RpcRequest() req: GetApplicationPackageAssociationRequest) {
    return this.registry.getAssociation(req);
  }

  @MessagePattern(rpcPattern('ApplicationPackageRegistry.ListAssociations'))
  listAssociations(@RpcRequest() req: ListApplicationPackageAssociationRequest) {
    return this.registry.listAssociations(req);
  }

  @MessagePattern(rpcPattern('ApplicationPackageRegistry.SetAssociation'))
  setAssociation(@RpcRequest() req: SetApplicationPackageAssociationRequest) {
    return this.registry.setAssociation(req);
  }

  @MessagePattern(rpcPattern('ApplicationPackageRegistry.DeleteAssociation'))
  deleteAssociation(@RpcRequest() req: ApplicationPackageAssociationIdentifiers) {
    return this.registry.deleteAssociation(req);
  }

  @MessagePattern(rpcPattern('ApplicationPackageRegistry.GetDefaultAssociation'))
  getDefaultAssociation(@RpcRequest() req: GetApplicationPackageDefaultAssociationRequest) {
    return this.registry.getDefaultAssociation(req);
  }

  @MessagePattern(rpcPattern('ApplicationPackageRegistry.ListDefaultAssociations'))
  listDefaultAssociations(@RpcRequest() req: ListApplicationPackageDefaultAssociationRequest) {
    return this.registry.listDefaultAssociations(req);
  }

  @MessagePattern(rpcPattern('ApplicationPackageRegistry.SetDefaultAssociation'))
  setDefaultAssociation(@RpcRequest() req: SetApplicationPackageDefaultAssociationRequest) {
    return this.registry.setDefaultAssociation(req);
  }

  @MessagePattern(rpcPattern('ApplicationPackageRegistry.DeleteDefaultAssociation'))
  deleteDefaultAssociation(@RpcRequest() req: ApplicationPackageDefaultAssociationIdentifiers) {
    return this.registry.deleteDefaultAssociation(req);
  }
}
