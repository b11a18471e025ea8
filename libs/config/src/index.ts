export * from './lib/stack-config';
export * from './lib/setting.decorator';
export * from './lib/node-flags';
