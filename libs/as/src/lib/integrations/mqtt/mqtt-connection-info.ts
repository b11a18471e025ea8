import type { MQTTConnectionInfo } from '@lorawan/api';
import type { MqttServerConfig } from '@lorawan/config';

/** What the connection info is made of: the MQTT settings, the stack's public URL, the ports this replica listens on. */
export interface ConnectionInfoSource {
  config: Pick<MqttServerConfig, 'port' | 'tls' | 'tenantId' | 'publicAddress' | 'publicTlsAddress'>;
  /** PUBLIC_URL (its host is the default public host). */
  publicUrl: string;
  /** The ports listened on (port 0: the ones the system chose); a listener that is not up: the configured port. */
  ports: { tcp?: number; tls?: number };
}

/**
 * TTS `AppAs.GetMQTTConnectionInfo`: the public addresses (`as.mqtt.public-address` and
 * `public-tls-address`; unset here: PUBLIC_URL's host with the MQTT ports, the TLS one only with
 * TLS on) and the username (the application ID, `{application}@{tenant}` with MQTT_TENANT_ID, as
 * TTS's `unique.ID`). Empty fields are left out, as the wire contract marshals them.
 */
export function mqttConnectionInfo(source: ConnectionInfoSource, applicationId: string): MQTTConnectionInfo {
  const { config, ports } = source;
  const host = new URL(source.publicUrl).hostname;
  const publicAddress = config.publicAddress ?? `${host}:${ports.tcp ?? config.port}`;
  const publicTlsAddress = config.publicTlsAddress ?? (config.tls ? `${host}:${ports.tls ?? config.tls.port}` : '');
  return {
    ...(publicAddress ? { public_address: publicAddress } : {}),
    ...(publicTlsAddress ? { public_tls_address: publicTlsAddress } : {}),
    username: config.tenantId ? `${applicationId}@${config.tenantId}` : applicationId,
  };
}
