export * from './lib/processes';
