import { api, get } from './client';

export type QoS = 'AT_MOST_ONCE' | 'AT_LEAST_ONCE' | 'EXACTLY_ONCE';

/** The message kinds a Pub/Sub publishes or (downlink_push/replace) subscribes to, in TTS's order. */
export const PUBSUB_MESSAGES = [
  ['uplink_message', 'Uplink message', 'up'],
  ['uplink_normalized', 'Normalized uplink', 'up/normalized'],
  ['join_accept', 'Join accept', 'join'],
  ['downlink_ack', 'Downlink ack', 'down/ack'],
  ['downlink_nack', 'Downlink nack', 'down/nack'],
  ['downlink_sent', 'Downlink sent', 'down/sent'],
  ['downlink_failed', 'Downlink failed', 'down/failed'],
  ['downlink_queued', 'Downlink queued', 'down/queued'],
  ['downlink_queue_invalidated', 'Downlink queue invalidated', 'down/invalidated'],
  ['location_solved', 'Location solved', 'location/solved'],
  ['service_data', 'Service data', 'service/data'],
  ['downlink_push', 'Downlink push (subscribed)', 'down/push'],
  ['downlink_replace', 'Downlink replace (subscribed)', 'down/replace'],
] as const;
export type PubSubMessageKind = (typeof PUBSUB_MESSAGES)[number][0];

/** `ttn.lorawan.v3.ApplicationPubSub` as the console reads it. */
export interface PubSub extends Partial<Record<PubSubMessageKind, { topic?: string }>> {
  ids: { application_ids?: { application_id: string }; pub_sub_id: string };
  format?: string;
  base_topic?: string;
  nats?: { server_url?: string };
  mqtt?: {
    server_url?: string;
    client_id?: string;
    username?: string;
    password?: string;
    publish_qos?: QoS;
    subscribe_qos?: QoS;
    use_tls?: boolean;
    tls_client_key?: string;
    headers?: Record<string, string>;
  };
  created_at?: string;
  updated_at?: string;
}

/** What the form edits. Secrets are write-only: `password` empty means "keep the stored one". */
export interface PubSubForm {
  id: string;
  provider: 'nats' | 'mqtt';
  format: string;
  base_topic: string;
  server_url: string;
  client_id: string;
  username: string;
  password: string;
  qos: QoS;
  /** Enabled message kinds and their topics. */
  messages: Partial<Record<PubSubMessageKind, string>>;
}

const app$ = (app: string) => encodeURIComponent(app);
const MESSAGE_MASK = PUBSUB_MESSAGES.map(([kind]) => kind).join(',');

/** A URL without the password of its user information (a NATS URL's secret). */
export function withoutPassword(value: string): string {
  try {
    const url = new URL(value);
    if (!url.password) return value;
    url.password = '';
    return url.toString();
  } catch {
    return value;
  }
}

/** A Pub/Sub as it may be shown: never a password, TLS key or header values, whatever rights the caller has. */
export function withoutSecrets(pubsub: PubSub): PubSub {
  const out: PubSub = { ...pubsub };
  if (out.mqtt) {
    const { password: _p, tls_client_key: _k, headers: _h, ...mqtt } = out.mqtt;
    out.mqtt = mqtt;
  }
  if (out.nats?.server_url) out.nats = { ...out.nats, server_url: withoutPassword(out.nats.server_url) };
  return out;
}

export const emptyForm = (): PubSubForm => ({
  id: '',
  provider: 'nats',
  format: 'json',
  base_topic: '',
  server_url: '',
  client_id: '',
  username: '',
  password: '',
  qos: 'AT_MOST_ONCE',
  messages: { uplink_message: 'up', join_accept: 'join' },
});

/** The form of a stored Pub/Sub (its secrets left out). */
export function formOf(stored: PubSub): PubSubForm {
  const p = withoutSecrets(stored);
  const messages: PubSubForm['messages'] = {};
  for (const [kind] of PUBSUB_MESSAGES) if (p[kind]) messages[kind] = p[kind]?.topic ?? '';
  return {
    id: p.ids.pub_sub_id,
    provider: p.mqtt ? 'mqtt' : 'nats',
    format: p.format ?? 'json',
    base_topic: p.base_topic ?? '',
    server_url: (p.mqtt ?? p.nats)?.server_url ?? '',
    client_id: p.mqtt?.client_id ?? '',
    username: p.mqtt?.username ?? '',
    password: '',
    qos: p.mqtt?.publish_qos ?? 'AT_MOST_ONCE',
    messages,
  };
}

/**
 * The Set request of a form: every field the form shows goes in the field mask, but a secret the
 * user left empty (the MQTT password) and, for NATS, a server URL left as shown (its password
 * hidden): those keep what is stored. `before` is the form as it was opened (an edit).
 */
export function setRequest(form: PubSubForm, before?: PubSubForm): { pubsub: Record<string, unknown>; field_mask: { paths: string[] } } {
  const paths = ['format', 'base_topic'];
  const pubsub: Record<string, unknown> = { ids: { pub_sub_id: form.id }, format: form.format, base_topic: form.base_topic };
  const providerChanged = !before || before.provider !== form.provider;
  if (form.provider === 'nats') {
    if (providerChanged || form.server_url !== before.server_url) {
      pubsub.nats = { server_url: form.server_url };
      paths.push('provider.nats.server_url');
    }
  } else {
    const mqtt: Record<string, unknown> = {
      server_url: form.server_url,
      client_id: form.client_id,
      username: form.username,
      publish_qos: form.qos,
      subscribe_qos: form.qos,
    };
    paths.push(...Object.keys(mqtt).map((f) => `provider.mqtt.${f}`));
    if (form.password !== '') {
      mqtt.password = form.password;
      paths.push('provider.mqtt.password');
    }
    pubsub.mqtt = mqtt;
  }
  for (const [kind] of PUBSUB_MESSAGES) {
    paths.push(kind);
    const topic = form.messages[kind];
    if (topic !== undefined) pubsub[kind] = { topic };
  }
  return { pubsub, field_mask: { paths } };
}

export const listPubSubs = async (app: string): Promise<PubSub[]> =>
  ((await get<{ pubsubs?: PubSub[] }>(`/as/pubsub/${app$(app)}`, { field_mask: MESSAGE_MASK })).pubsubs ?? []).map(withoutSecrets);

export const getPubSub = async (app: string, id: string): Promise<PubSub> =>
  withoutSecrets(await get<PubSub>(`/as/pubsub/${app$(app)}/${encodeURIComponent(id)}`, { field_mask: MESSAGE_MASK }));

export const getPubSubFormats = async (): Promise<Record<string, string>> =>
  (await get<{ formats?: Record<string, string> }>('/as/pubsub-formats')).formats ?? {};

export const savePubSub = async (app: string, form: PubSubForm, before?: PubSubForm): Promise<void> => {
  await api('PUT', `/as/pubsub/${app$(app)}/${encodeURIComponent(form.id)}`, { body: setRequest(form, before) });
};

export const deletePubSub = async (app: string, id: string): Promise<void> => {
  await api('DELETE', `/as/pubsub/${app$(app)}/${encodeURIComponent(id)}`);
};
