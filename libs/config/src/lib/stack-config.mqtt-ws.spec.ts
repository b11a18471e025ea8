import { ConfigError, loadConfig } from './stack-config';

describe('MQTT over WebSocket settings (MQTT_WS_*)', () => {
  it('serves /mqtt by default, with the in-process AS only', () => {
    expect(loadConfig({}).http.mqttWebSocket).toEqual({ path: '/mqtt', upstream: undefined });
  });

  it('takes another path, or none with off', () => {
    expect(loadConfig({ MQTT_WS_PATH: '/api/v3/as/mqtt' }).http.mqttWebSocket.path).toBe('/api/v3/as/mqtt');
    expect(loadConfig({ MQTT_WS_PATH: 'off' }).http.mqttWebSocket.path).toBeUndefined();
  });

  it('reads the upstream as host and port (IPv6 in brackets)', () => {
    expect(loadConfig({ MQTT_WS_UPSTREAM: 'as-mqtt:1883' }).http.mqttWebSocket.upstream).toEqual({ host: 'as-mqtt', port: 1883 });
    expect(loadConfig({ MQTT_WS_UPSTREAM: '[::1]:11883' }).http.mqttWebSocket.upstream).toEqual({ host: '::1', port: 11883 });
  });

  it.each([
    ['MQTT_WS_PATH', 'mqtt'],
    ['MQTT_WS_PATH', '/mqtt/'],
    ['MQTT_WS_PATH', '/a b'],
    ['MQTT_WS_UPSTREAM', 'as-mqtt'],
    ['MQTT_WS_UPSTREAM', 'as-mqtt:0'],
    ['MQTT_WS_UPSTREAM', 'as-mqtt:70000'],
    ['MQTT_WS_UPSTREAM', 'mqtt://as-mqtt:1883'],
  ])('refuses %s=%s at boot', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
