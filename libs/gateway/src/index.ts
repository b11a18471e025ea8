export * from './lib/gateway.module';
export * from './lib/start-gateway';
export * from './lib/request-builder';
export * from './lib/gateway-errors';
export { inProcessMqttUpstream, type MqttStreamServer, type MqttUpstream } from './lib/mqtt-websocket/mqtt-upstream';
