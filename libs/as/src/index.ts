export * from './lib/as.module';
export * from './lib/as-data-source';
export * from './lib/errors';
export * from './lib/end-devices/as-registry.policy';
export * from './lib/integrations';
export { webhookStreamName } from './lib/integrations/webhooks/delivery/jetstream-job-queue';
export { MqttServer } from './lib/integrations/mqtt/mqtt-server.service';
