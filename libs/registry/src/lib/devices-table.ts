import { type QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

export interface DevicesTableOptions {
  /**
   * JoinEUI + DevEUI identify one device across the registry (JS and NS, as TTS); the AS does not
   * enforce it. NULL EUIs (ABP devices without them) never collide, in MySQL as in SQLite.
   */
  uniqueEuis: boolean;
}

/**
 * The `end_devices` table of a JS/NS/AS registry, for that component's first migration. One
 * definition, run by each component against its own database.
 */
export async function createDevicesTable(queryRunner: QueryRunner, options: DevicesTableOptions): Promise<void> {
  const mysql = queryRunner.connection.options.type === 'mysql';
  const time = mysql ? 'datetime(6)' : 'varchar(32)';
  const hex = mysql ? 'char' : 'varchar';
  await queryRunner.createTable(
    new Table({
      name: 'end_devices',
      columns: [
        { name: 'application_id', type: 'varchar', length: '36', isPrimary: true },
        { name: 'device_id', type: 'varchar', length: '36', isPrimary: true },
        { name: 'dev_eui', type: hex, length: '16', isNullable: true },
        { name: 'join_eui', type: hex, length: '16', isNullable: true },
        { name: 'dev_addr', type: hex, length: '8', isNullable: true },
        { name: 'created_at', type: time },
        { name: 'updated_at', type: time },
        { name: 'revision', type: 'int' },
        { name: 'fields', type: mysql ? 'longtext' : 'text' },
      ],
    }),
  );
  const indexes: Array<[string, string[], boolean]> = [
    ['idx_end_devices_euis', ['join_eui', 'dev_eui'], options.uniqueEuis],
    ['idx_end_devices_dev_eui', ['dev_eui'], false],
    ['idx_end_devices_dev_addr', ['dev_addr'], false],
  ];
  for (const [name, columnNames, isUnique] of indexes) {
    await queryRunner.createIndex('end_devices', new TableIndex({ name: isUnique ? name.replace('idx_', 'uq_') : name, columnNames, isUnique }));
  }
}

/**
 * `pending_dev_addr`: the DevAddr of the device's pending session (a join-accept sent, the device
 * not heard in its new session yet), indexed like `dev_addr`: the data plane looks a device up by
 * either, since its first uplink after a join comes from the pending DevAddr.
 */
export async function addPendingDevAddrColumn(queryRunner: QueryRunner): Promise<void> {
  const hex = queryRunner.connection.options.type === 'mysql' ? 'char' : 'varchar';
  await queryRunner.addColumn('end_devices', new TableColumn({ name: 'pending_dev_addr', type: hex, length: '8', isNullable: true }));
  await queryRunner.createIndex('end_devices', new TableIndex({ name: 'idx_end_devices_pending_dev_addr', columnNames: ['pending_dev_addr'] }));
}

export async function dropPendingDevAddrColumn(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.dropIndex('end_devices', 'idx_end_devices_pending_dev_addr');
  await queryRunner.dropColumn('end_devices', 'pending_dev_addr');
}

export async function dropDevicesTable(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.dropTable('end_devices');
}
