export * from './lib/processes';
export * from './lib/events';
export * from './lib/webhook-receiver';
export * from './lib/components';
export * from './lib/private-services';
export * from './lib/udp-gateway';
export * from './lib/otaa-device';
export * from './lib/lora-join-accept';
