import { api, get } from './client';

/** `ttn.lorawan.v3.MQTTConnectionInfo`: where and as whom an MQTT client of the application connects. */
export interface MqttConnectionInfo {
  public_address?: string;
  public_tls_address?: string;
  username?: string;
}

/** The rights a key for the MQTT server needs: subscribe to traffic, publish downlinks (as TTS's console asks for). */
export const MQTT_KEY_RIGHTS = ['RIGHT_APPLICATION_TRAFFIC_READ', 'RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE'] as const;

/** An API key as created: `key` is the whole token, answered this once only. */
export interface CreatedApiKey {
  id: string;
  key: string;
  name?: string;
  rights?: string[];
}

export const getMqttConnectionInfo = (app: string): Promise<MqttConnectionInfo> =>
  get<MqttConnectionInfo>(`/as/applications/${encodeURIComponent(app)}/mqtt-connection-info`);

/** A new application API key with the MQTT rights, named after its purpose and time (API key names: 50 characters at most). */
export async function createMqttKey(app: string, now = new Date()): Promise<CreatedApiKey> {
  const name = `mqtt ${now.toISOString().slice(0, 19)}Z`;
  return (await api<CreatedApiKey>('POST', `/applications/${encodeURIComponent(app)}/api-keys`, { body: { name, rights: [...MQTT_KEY_RIGHTS] } })).body;
}
