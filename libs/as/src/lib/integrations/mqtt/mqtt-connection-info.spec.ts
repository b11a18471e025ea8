import { MQTTConnectionInfo, decodeMessage } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { mqttConnectionInfo, type ConnectionInfoSource } from './mqtt-connection-info';

const TLS = { port: 8883, certFile: '/c.pem', keyFile: '/k.pem' };
const source = (config: Partial<ConnectionInfoSource['config']>, ports: ConnectionInfoSource['ports'] = {}): ConnectionInfoSource => ({
  config: { port: 1883, ...config },
  publicUrl: 'https://lorawan.example.com/api/v3',
  ports,
});

describe('mqttConnectionInfo (AppAs.GetMQTTConnectionInfo)', () => {
  it('tells the configured public addresses and the application ID as username', () => {
    const info = mqttConnectionInfo(source({ publicAddress: 'mqtt.example.com:1883', publicTlsAddress: 'mqtt.example.com:8883' }), 'app-1');
    expect(info).toEqual({ public_address: 'mqtt.example.com:1883', public_tls_address: 'mqtt.example.com:8883', username: 'app-1' });
    // What the contract accepts as the answer.
    expect(decodeMessage(MQTTConnectionInfo, info)).toEqual(info);
  });

  it("derives the addresses from PUBLIC_URL's host and the ports listened on; a TLS address only with TLS on", () => {
    expect(mqttConnectionInfo(source({}, { tcp: 41883 }), 'app-1')).toEqual({ public_address: 'lorawan.example.com:41883', username: 'app-1' });
    expect(mqttConnectionInfo(source({ tls: TLS }), 'app-1')).toEqual({
      public_address: 'lorawan.example.com:1883',
      public_tls_address: 'lorawan.example.com:8883',
      username: 'app-1',
    });
    expect(mqttConnectionInfo(source({ tls: TLS }, { tcp: 1, tls: 2 }), 'a').public_tls_address).toBe('lorawan.example.com:2');
  });

  it('leaves out an address that is empty, and names the tenant in the username', () => {
    expect(mqttConnectionInfo(source({ publicAddress: '', tenantId: 'tenant-1', tls: TLS, publicTlsAddress: 'x.example.com:8883' }), 'app-1')).toEqual({
      public_tls_address: 'x.example.com:8883',
      username: 'app-1@tenant-1',
    });
  });

  it('reads MQTT_PUBLIC_ADDRESS and MQTT_PUBLIC_TLS_ADDRESS, and refuses one that is no host[:port]', () => {
    const config = loadConfig({ MQTT_PUBLIC_ADDRESS: 'mqtt.example.com:1883', MQTT_PUBLIC_TLS_ADDRESS: '[2001:db8::1]:8883' });
    expect([config.as.mqtt.publicAddress, config.as.mqtt.publicTlsAddress]).toEqual(['mqtt.example.com:1883', '[2001:db8::1]:8883']);
    expect(loadConfig({}).as.mqtt.publicAddress).toBeUndefined();
    expect(() => loadConfig({ MQTT_PUBLIC_ADDRESS: 'mqtt://mqtt.example.com:1883' })).toThrow(/MQTT_PUBLIC_ADDRESS must be host\[:port\]/);
  });
});
