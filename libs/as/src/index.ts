export * from './lib/as.module';
