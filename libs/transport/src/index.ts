export * from './lib/transport';
export * from './lib/in-process.transport';
export * from './lib/nats.transport';
export * from './lib/create-transport';
export * from './lib/codec';
export * from './lib/jetstream-streams';
