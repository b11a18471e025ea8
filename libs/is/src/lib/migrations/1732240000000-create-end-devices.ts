import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/** IS end devices, with one index per lookup and per List order (each ends in device_id, the tiebreak). */
export class CreateEndDevices1732240000000 implements MigrationInterface {
  name = 'CreateEndDevices1732240000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    const time = mysql ? 'datetime(6)' : 'varchar(32)';
    // Code-point order for names and descriptions, whatever the database default (SQLite's BINARY matches).
    const text = mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {};
    await queryRunner.createTable(
      new Table({
        name: 'end_devices',
        columns: [
          { name: 'application_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'device_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'dev_eui', type: mysql ? 'char' : 'varchar', length: '16', isNullable: true },
          { name: 'join_eui', type: mysql ? 'char' : 'varchar', length: '16', isNullable: true },
          { name: 'name', type: 'varchar', length: '50', default: "''", ...text },
          { name: 'description', type: 'varchar', length: '2000', default: "''", ...text },
          { name: 'description_key', type: 'varchar', length: '191', default: "''", ...text },
          { name: 'created_at', type: time },
          { name: 'updated_at', type: time },
          { name: 'fields', type: mysql ? 'longtext' : 'text' },
        ],
      }),
    );
    const indexes: Array<[string, string[], boolean]> = [
      ['uq_end_devices_join_eui_dev_eui', ['join_eui', 'dev_eui'], true],
      ['idx_end_devices_app_name', ['application_id', 'name', 'device_id'], false],
      ['idx_end_devices_app_description', ['application_id', 'description_key', 'device_id'], false],
      ['idx_end_devices_app_created_at', ['application_id', 'created_at', 'device_id'], false],
      ['idx_end_devices_app_dev_eui', ['application_id', 'dev_eui', 'device_id'], false],
      ['idx_end_devices_app_join_eui', ['application_id', 'join_eui', 'device_id'], false],
    ];
    for (const [name, columnNames, isUnique] of indexes) {
      await queryRunner.createIndex('end_devices', new TableIndex({ name, columnNames, isUnique }));
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('end_devices');
  }
}
