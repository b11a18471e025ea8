import { Module } from '@nestjs/common';
import { AccessModule } from './access/access.module';
import { ConfigurationModule } from './configuration/configuration.module';
import { EndDevicesModule } from './end-devices/end-devices.module';
import { EntitiesModule } from './entities/entities.module';

/**
 * The Identity Server: users, organizations, applications, gateways and clients (`entities/`),
 * API keys and rights (`access/`), end-device metadata (`end-devices/`), on its own database; and
 * the stack's configuration (`configuration/`: the frequency plans).
 */
@Module({
  imports: [AccessModule, EntitiesModule, EndDevicesModule, ConfigurationModule],
})
export class IsModule {}
