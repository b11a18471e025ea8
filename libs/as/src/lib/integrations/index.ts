export * from './application-up-sink';
