import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import { type ApplicationPubSub, PubSubQoS, type PubSubQoSName } from '@lorawan/api';
import { mqttSubscription, topicOf } from '../pubsub-topics';
import { MAX_IN_FLIGHT, type ProviderConnection, type ProviderListener, type ProviderOptions, type PubSubProviderDriver, redact } from './provider';

/** TTS `adaptURLScheme` the other way round: the URL schemes of MQTT.js (`tcp`/`ssl` are TTS's), TLS when `use_tls`. */
function brokerUrl(serverUrl: string, useTls: boolean): string {
  const url = new URL(serverUrl);
  const scheme = url.protocol.slice(0, -1);
  const tls = useTls || ['mqtts', 'ssl', 'tls', 'wss'].includes(scheme);
  const isWs = scheme === 'ws' || scheme === 'wss';
  const protocol = isWs ? (tls ? 'wss' : 'ws') : tls ? 'mqtts' : 'mqtt';
  return `${protocol}://${url.host}${isWs ? url.pathname + url.search : ''}`;
}

const qos = (name: PubSubQoSName | undefined): 0 | 1 | 2 => (name ? PubSubQoS.values[name] : 0) as 0 | 1 | 2;

/**
 * The MQTT provider (TTS `provider/mqtt`) on MQTT.js, MQTT 3.1.1: the Pub/Sub's client ID,
 * username, password, TLS (CA, client certificate and key) and, over WebSocket, headers; publishes
 * with `publish_qos`, subscribes to the downlink topics with `subscribe_qos` (as shared
 * subscriptions of the AS replicas' group unless turned off). Reconnection is ours, with capped
 * exponential backoff (MQTT.js's own is a fixed period): after each close, the next attempt waits
 * `backoffMs(n)`; a successful connection starts the count again.
 */
export class MqttProviderDriver implements PubSubProviderDriver {
  open(pubsub: ApplicationPubSub, listener: ProviderListener, options: ProviderOptions): ProviderConnection {
    return new MqttConnection(pubsub, listener, options);
  }
}

class MqttConnection implements ProviderConnection {
  private readonly client: MqttClient;
  private readonly subscriptions = new Map<string, 'push' | 'replace'>();
  private readonly publishQos: 0 | 1 | 2;
  private attempt = 0;
  private wasConnected = false;
  private closed = false;
  private retry?: NodeJS.Timeout;
  private inFlight = 0;
  private lastError = '';

  constructor(
    pubsub: ApplicationPubSub,
    private readonly listener: ProviderListener,
    private readonly options: ProviderOptions,
  ) {
    const mqtt = pubsub.mqtt ?? {};
    this.publishQos = qos(mqtt.publish_qos);
    for (const operation of ['push', 'replace'] as const) {
      const topic = topicOf(pubsub, 'mqtt', `downlink_${operation}`);
      if (topic) this.subscriptions.set(topic, operation);
    }
    const url = brokerUrl(mqtt.server_url ?? '', mqtt.use_tls ?? false);
    const clientOptions: IClientOptions = {
      clientId: mqtt.client_id || `lorawan-as-${Math.random().toString(16).slice(2, 10)}`,
      username: mqtt.username || undefined,
      password: mqtt.password || undefined,
      protocolVersion: 4,
      clean: true,
      keepalive: 60,
      connectTimeout: 10_000,
      reconnectPeriod: 0,
      resubscribe: false,
      queueQoSZero: false,
      ...(mqtt.tls_ca ? { ca: Buffer.from(mqtt.tls_ca, 'base64') } : {}),
      ...(mqtt.tls_client_cert ? { cert: Buffer.from(mqtt.tls_client_cert, 'base64') } : {}),
      ...(mqtt.tls_client_key ? { key: Buffer.from(mqtt.tls_client_key, 'base64') } : {}),
      ...(mqtt.headers && Object.keys(mqtt.headers).length > 0 ? { wsOptions: { headers: mqtt.headers } } : {}),
    };
    this.client = connect(url, clientOptions);
    this.client.on('connect', () => this.onConnect(qos(mqtt.subscribe_qos)));
    this.client.on('error', (err) => (this.lastError = redact(err.message)));
    this.client.on('message', (topic, payload, packet) => {
      // A shared subscription delivers on the topic itself; `$share/…` never appears here.
      const operation = this.subscriptions.get(topic) ?? this.subscriptions.get(packet.topic);
      if (operation) this.listener.downlink(operation, topic, payload);
    });
    this.client.on('close', () => this.onClose());
  }

  get connected(): boolean {
    return !this.closed && this.client.connected;
  }

  publish(topic: string, body: Buffer, done: (err?: Error) => void): boolean {
    if (!this.connected || this.inFlight >= MAX_IN_FLIGHT) return false;
    this.inFlight++;
    this.client.publish(topic, body, { qos: this.publishQos }, (err) => {
      this.inFlight--;
      done(err ?? undefined);
    });
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await new Promise<void>((resolve) => this.client.end(true, {}, () => resolve()));
  }

  private onConnect(subscribeQos: 0 | 1 | 2): void {
    this.attempt = 0;
    this.wasConnected = true;
    this.lastError = '';
    for (const topic of this.subscriptions.keys()) {
      this.client.subscribe(mqttSubscription(topic, this.options.shareGroup), { qos: subscribeQos }, (err, granted) => {
        const refused = err ?? (granted?.some((g) => g.qos === 128) ? new Error(`subscription to ${topic} refused`) : undefined);
        if (refused && !this.closed) this.listener.disconnected(redact(refused.message), true);
      });
    }
    this.listener.connected();
  }

  private onClose(): void {
    if (this.closed) return;
    this.listener.disconnected(this.lastError || 'connection closed', this.wasConnected);
    this.wasConnected = false;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      if (!this.closed) this.client.reconnect();
    }, this.options.backoffMs(++this.attempt));
    this.retry.unref();
  }
}
