export * from './lib/frequency-plans';
export * from './lib/device-templates';
export * from './lib/frames';
export * from './lib/mac';
export * from './lib/class-b';
export * from './lib/time-on-air';
export * from './lib/basicstation/eui';
export { deepFreeze } from './lib/deep-freeze';
