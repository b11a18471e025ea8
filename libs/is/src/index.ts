export * from './lib/is.module';
export * from './lib/is-data-source';
export * from './lib/errors';
export * from './lib/end-devices/end-device.model';
export * from './lib/end-devices/typeorm-end-device.store';
export * from './lib/end-devices/end-device-registry.service';
