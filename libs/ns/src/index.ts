export * from './lib/ns.module';
export * from './lib/ns-data-source';
export * from './lib/errors';
export * from './lib/end-devices/ns-registry.policy';
export * from './lib/mac-state';
export * from './lib/uplinks/uplink-deduplicator';
export * from './lib/uplinks/jetstream-uplink-deduplicator';
export * from './lib/model';
