export * from './time-on-air';
