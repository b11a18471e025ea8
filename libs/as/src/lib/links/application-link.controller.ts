import { Inject, Controller } from '@nestjs/common';
import { rpcPattern, type ApplicationIdentifiers, type GetApplicationLinkRequest, type SetApplicationLinkRequest } from '@lorawan/api';
import { RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { ApplicationLinkRegistry } from './application-link.service';

/** As.GetLink|SetLink|DeleteLink: each delegates to the ApplicationLinkRegistry. */
@Controller()
export class ApplicationLinkController {
  constructor(@Inject(ApplicationLinkRegistry) private readonly links: ApplicationLinkRegistry) {}

  @MessagePattern(rpcPattern('As.GetLink'))
  get(@RpcRequest() req: GetApplicationLinkRequest) {
    return this.links.get(req);
  }

  @MessagePattern(rpcPattern('As.SetLink'))
  set(@RpcRequest() req: SetApplicationLinkRequest) {
    return this.links.set(req);
  }

  @MessagePattern(rpcPattern('As.DeleteLink'))
  delete(@RpcRequest() req: ApplicationIdentifiers) {
    return this.links.delete(req);
  }
}
