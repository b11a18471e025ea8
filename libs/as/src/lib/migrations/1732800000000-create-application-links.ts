import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

/** The application links (TTS `As` GetLink/SetLink): one row per application, its settings as JSON (MySQL/MariaDB and SQLite). */
export class CreateApplicationLinks1732800000000 implements MigrationInterface {
  name = 'CreateApplicationLinks1732800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'application_links',
        columns: [
          { name: 'application_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'fields', type: 'text' },
          { name: 'created_at', type: 'varchar', length: '32' },
          { name: 'updated_at', type: 'varchar', length: '32' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('application_links');
  }
}
