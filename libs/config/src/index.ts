export * from './lib/stack-config';
