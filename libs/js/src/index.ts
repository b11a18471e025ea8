export * from './lib/js.module';
export * from './lib/js-data-source';
export * from './lib/errors';
export * from './lib/end-devices/js-registry.policy';
