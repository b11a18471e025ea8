import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDevicesTable, dropDevicesTable } from '@lorawan/registry';

/** JS end devices: JoinEUI + DevEUI identify one device in the Join Server. */
export class CreateJsEndDevices1732500000000 implements MigrationInterface {
  name = 'CreateJsEndDevices1732500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createDevicesTable(queryRunner, { uniqueEuis: true });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropDevicesTable(queryRunner);
  }
}
