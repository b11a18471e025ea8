export * from './lib/data-source';
export * from './lib/mysql-admin';
export * from './lib/columns';
export * from './lib/database-health';
export * from './lib/atomic';
export * from './lib/data-source.providers';
export * from './lib/database-errors';
export * from './lib/statements';
