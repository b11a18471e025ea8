export * from './lib/errors';
export * from './lib/keks';
export * from './lib/key-vault';
