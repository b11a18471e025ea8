export * from './lib/events.module';
