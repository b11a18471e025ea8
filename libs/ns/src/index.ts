export * from './lib/ns.module';
