import type { ApplicationPubSub, PubSubProvider } from '@lorawan/api';

/**
 * MQTT: the base topic's levels then the message's, as TTS joins them (`topic.Join(append(Split(base),
 * Split(topic)...))`, splitting on `/` and keeping empty levels). So an empty base topic gives a leading
 * empty level (`/up`) and an empty message topic a trailing one (`base/`): the topics a client moved
 * from TTS already subscribes to.
 */
export function mqttTopic(base: string | undefined, topic: string | undefined): string {
  return [...(base ?? '').split('/'), ...(topic ?? '').split('/')].join('/');
}

/** NATS: TTS `combineSubjects`: both trimmed of dots, joined by one. */
export function natsSubject(base: string | undefined, topic: string | undefined): string {
  const a = (base ?? '').replace(/^\.+|\.+$/g, '');
  const b = (topic ?? '').replace(/^\.+|\.+$/g, '');
  if (a === '') return b;
  if (b === '') return a;
  return `${a}.${b}`;
}

/** The topic (MQTT) or subject (NATS) of a message kind or downlink operation of a Pub/Sub, or undefined when it is not enabled. */
export function topicOf(
  pubsub: ApplicationPubSub,
  provider: PubSubProvider,
  field: Exclude<keyof ApplicationPubSub, 'ids' | 'created_at' | 'updated_at' | 'format' | 'nats' | 'mqtt' | 'aws_iot' | 'base_topic'>,
): string | undefined {
  const message = pubsub[field];
  if (message === undefined || message === null) return undefined;
  return provider === 'nats' ? natsSubject(pubsub.base_topic, message.topic) : mqttTopic(pubsub.base_topic, message.topic);
}

/** What an MQTT client subscribes for a downlink topic: a shared subscription of the AS replicas' group, unless turned off. */
export function mqttSubscription(topic: string, shareGroup: string | undefined): string {
  return shareGroup ? `$share/${shareGroup}/${topic}` : topic;
}

/** The provider of a Pub/Sub (undefined: none, which the registry never stores). */
export function providerOf(pubsub: Pick<ApplicationPubSub, 'nats' | 'mqtt'>): PubSubProvider | undefined {
  if (pubsub.nats) return 'nats';
  if (pubsub.mqtt) return 'mqtt';
  return undefined;
}
