import { Inject, Injectable } from '@nestjs/common';
import type { ApplicationIdentifiers, GetApplicationLinkRequest, SetApplicationLinkRequest } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { ApplicationLinkRegistry } from './application-link.service';

/** As.GetLink|SetLink|DeleteLink: each delegates to the ApplicationLinkRegistry. */
@Injectable()
export class ApplicationLinkRpc {
  constructor(@Inject(ApplicationLinkRegistry) private readonly links: ApplicationLinkRegistry) {}

  @RpcHandler('As.GetLink')
  get(req: GetApplicationLinkRequest) {
    return this.links.get(req);
  }

  @RpcHandler('As.SetLink')
  set(req: SetApplicationLinkRequest) {
    return this.links.set(req);
  }

  @RpcHandler('As.DeleteLink')
  delete(req: ApplicationIdentifiers) {
    return this.links.delete(req);
  }
}
