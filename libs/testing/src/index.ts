export * from './lib/processes';
export * from './lib/events';
export * from './lib/webhook-receiver';
export * from './lib/private-services';
