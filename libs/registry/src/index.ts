export * from './lib/device-record';
export * from './lib/device.entity';
export * from './lib/devices-table';
export * from './lib/typeorm-device.store';
export * from './lib/key-sealer';
export * from './lib/device-registry';
export * from './lib/registry.errors';
export * from './lib/registry.providers';
