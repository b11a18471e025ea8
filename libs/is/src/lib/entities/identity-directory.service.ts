import { Inject, Injectable } from '@nestjs/common';
import type { EntityRef, Right } from '@lorawan/api';
import type { IdentityDirectory, UserEssentials } from '../identity.contracts';
import { APPLICATION_STORE, type ApplicationStore } from './applications/application.model';
import { CLIENT_STORE, type ClientStore } from './clients/client.model';
import { COLLABORATOR_STORE, type CollaboratorStore } from './collaborators/collaborator.model';
import { GATEWAY_STORE, type GatewayStore } from './gateways/gateway.model';
import { ORGANIZATION_STORE, type OrganizationStore } from './organizations/organization.model';
import { USER_STORE, type UserStore } from './users/user.model';

/** What the access side (API keys, rights) and the end-device registry ask of users, organizations, applications, gateways and clients. */
@Injectable()
export class IdentityDirectoryService implements IdentityDirectory {
  constructor(
    @Inject(USER_STORE) private readonly users: UserStore,
    @Inject(APPLICATION_STORE) private readonly applications: ApplicationStore,
    @Inject(GATEWAY_STORE) private readonly gateways: GatewayStore,
    @Inject(COLLABORATOR_STORE) private readonly collaborators: CollaboratorStore,
    @Inject(CLIENT_STORE) private readonly clients: ClientStore,
    @Inject(ORGANIZATION_STORE) private readonly organizations: OrganizationStore,
  ) {}

  async user(userId: string): Promise<UserEssentials | undefined> {
    const user = await this.users.get(userId);
    return user && { user_id: user.ids.user_id, admin: user.admin ?? false, state: user.state ?? 'STATE_REQUESTED' };
  }

  async exists(entity: EntityRef): Promise<boolean> {
    switch (entity.kind) {
      case 'user':
        return this.users.exists(entity.id);
      case 'application':
        return this.applications.exists(entity.id);
      case 'gateway':
        return this.gateways.exists(entity.id);
      case 'client':
        return this.clients.exists(entity.id);
      case 'organization':
        return this.organizations.exists(entity.id);
    }
  }

  async collaboratorRights(accountId: string, entity: EntityRef): Promise<Right[]> {
    return this.collaborators.membershipRights(accountId, entity);
  }
}
