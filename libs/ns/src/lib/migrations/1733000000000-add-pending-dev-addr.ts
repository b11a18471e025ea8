import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addPendingDevAddrColumn, dropPendingDevAddrColumn } from '@lorawan/registry';

/** NS end devices: the pending session's DevAddr as an indexed column (the data plane finds a device by it). */
export class AddNsPendingDevAddr1733000000000 implements MigrationInterface {
  name = 'AddNsPendingDevAddr1733000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await addPendingDevAddrColumn(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropPendingDevAddrColumn(queryRunner);
  }
}
