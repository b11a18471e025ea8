export * from './lib/processes';
export * from './lib/events';
