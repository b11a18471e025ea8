import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { UserRegistryService } from './user-registry.service';

/** On IS start: the configured admin user exists (created once; replicas starting together are fine). */
@Injectable()
export class AdminUserBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger(AdminUserBootstrap.name);

  constructor(private readonly users: UserRegistryService) {}

  async onApplicationBootstrap(): Promise<void> {
    if (await this.users.ensureAdminUser()) this.logger.log('created the admin user');
  }
}
