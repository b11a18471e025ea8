import type { DataSource } from 'typeorm';

/** Readiness check of a component's database. */
export class DatabaseHealthIndicator {
  readonly name = 'database';
  constructor(private readonly ds: DataSource) {}

  async isHealthy(): Promise<boolean> {
    try {
      await this.ds.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }
}
