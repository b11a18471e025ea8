import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDevicesTable, dropDevicesTable } from '@lorawan/registry';

/** NS end devices: JoinEUI + DevEUI identify one device in the Network Server; DevAddr is indexed for uplinks. */
export class CreateNsEndDevices1732500000000 implements MigrationInterface {
  name = 'CreateNsEndDevices1732500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createDevicesTable(queryRunner, { uniqueEuis: true });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropDevicesTable(queryRunner);
  }
}
