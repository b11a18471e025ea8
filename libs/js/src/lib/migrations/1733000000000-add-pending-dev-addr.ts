import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addPendingDevAddrColumn, dropPendingDevAddrColumn } from '@lorawan/registry';

/** JS end devices: the pending session's DevAddr as an indexed column (the data plane finds a device by it). */
export class AddJsPendingDevAddr1733000000000 implements MigrationInterface {
  name = 'AddJsPendingDevAddr1733000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await addPendingDevAddrColumn(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropPendingDevAddrColumn(queryRunner);
  }
}
