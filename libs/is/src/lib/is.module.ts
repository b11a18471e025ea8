import { Module } from '@nestjs/common';
import { AccessModule } from './access/access.module';
import { EndDevicesModule } from './end-devices/end-devices.module';
import { EntitiesModule } from './entities/entities.module';

/**
 * The Identity Server: users, organizations, applications, gateways and clients (`entities/`),
 * API keys and rights (`access/`), end-device metadata (`end-devices/`), on its own database.
 */
@Module({
  imports: [AccessModule, EntitiesModule, EndDevicesModule],
})
export class IsModule {}
