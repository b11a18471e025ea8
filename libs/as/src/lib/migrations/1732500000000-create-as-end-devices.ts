import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDevicesTable, dropDevicesTable } from '@lorawan/registry';

/** AS end devices. The AS does not require JoinEUI + DevEUI to be unique (as TTS), so several devices may share them. */
export class CreateAsEndDevices1732500000000 implements MigrationInterface {
  name = 'CreateAsEndDevices1732500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createDevicesTable(queryRunner, { uniqueEuis: false });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropDevicesTable(queryRunner);
  }
}
