import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The JSON of a webhook or an application link in a MySQL `LONGTEXT`, as the end-device tables
 * hold theirs. `TEXT` holds 65 535 bytes, less than what validation lets through: a webhook's 50
 * headers of 4096-character values alone are about 208 KB, an application link's two 40 960-byte
 * formatter scripts 80 KB; such a Set failed with "Data too long for column 'fields'" (a 500).
 * SQLite's TEXT has no such limit.
 */
export class WidenSettingsColumns1732900000000 implements MigrationInterface {
  name = 'WidenSettingsColumns1732900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'mysql') return;
    for (const table of ['webhooks', 'application_links']) await queryRunner.query(`ALTER TABLE \`${table}\` MODIFY \`fields\` LONGTEXT NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'mysql') return;
    for (const table of ['webhooks', 'application_links']) await queryRunner.query(`ALTER TABLE \`${table}\` MODIFY \`fields\` TEXT NOT NULL`);
  }
}
