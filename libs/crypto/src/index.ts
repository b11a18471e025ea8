export * from './lib/errors';
export * from './lib/keks';
export * from './lib/key-vault';
export * from './lib/secret-hash';
export * from './lib/frm-payload';
