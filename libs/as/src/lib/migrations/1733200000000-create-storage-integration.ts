import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * The application packages and the Storage Integration (MySQL/MariaDB and SQLite).
 * `package_associations`: one row per association, a device's (`device_id` set) or an application's
 * default (`device_id` = ''), by FPort; `data` is the association's Struct as JSON.
 * `stored_application_ups`: the stored ApplicationUp messages, in the order they were written
 * (`id`), by application, device, type (`uplink_message`, `join_accept`, …), `received_at` (epoch
 * ms) and FPort (data uplinks). Its indexes serve the queries of an application or of one device by
 * type in time order, and the retention's deletes by age.
 */
export class CreateStorageIntegration1733200000000 implements MigrationInterface {
  name = 'CreateStorageIntegration1733200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(
      new Table({
        name: 'package_associations',
        columns: [
          { name: 'application_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'device_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'f_port', type: 'smallint', isPrimary: true },
          { name: 'package_name', type: 'varchar', length: '36' },
          { name: 'data', type: 'text', isNullable: true },
          { name: 'created_at', type: 'varchar', length: '32' },
          { name: 'updated_at', type: 'varchar', length: '32' },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'stored_application_ups',
        columns: [
          // SQLite autoincrements only an INTEGER PRIMARY KEY (a 64-bit rowid).
          { name: 'id', type: mysql ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'application_id', type: 'varchar', length: '36' },
          { name: 'device_id', type: 'varchar', length: '36' },
          { name: 'type', type: 'varchar', length: '32' },
          { name: 'received_at', type: 'bigint' },
          { name: 'f_port', type: 'smallint', isNullable: true },
          { name: 'up', type: mysql ? 'longtext' : 'text' },
        ],
      }),
    );
    await queryRunner.createIndex(
      'stored_application_ups',
      new TableIndex({ name: 'idx_stored_ups_application', columnNames: ['application_id', 'type', 'received_at', 'id'] }),
    );
    await queryRunner.createIndex(
      'stored_application_ups',
      new TableIndex({ name: 'idx_stored_ups_device', columnNames: ['application_id', 'device_id', 'type', 'received_at', 'id'] }),
    );
    await queryRunner.createIndex('stored_application_ups', new TableIndex({ name: 'idx_stored_ups_age', columnNames: ['received_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('stored_application_ups');
    await queryRunner.dropTable('package_associations');
  }
}
