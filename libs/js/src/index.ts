export * from './lib/js.module';
