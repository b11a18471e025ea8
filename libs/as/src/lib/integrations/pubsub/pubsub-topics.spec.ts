import { mqttSubscription, mqttTopic, natsSubject, providerOf, topicOf } from './pubsub-topics';
import type { ApplicationPubSub } from '@lorawan/api';

describe('Pub/Sub topics', () => {
  it('joins MQTT topics by levels (TTS mqtt_topic.Join of both splits)', () => {
    expect(mqttTopic('lorawan/app1', 'up')).toBe('lorawan/app1/up');
    expect(mqttTopic('lorawan/', 'up')).toBe('lorawan//up');
    // TTS keeps the empty level of an empty base or message topic.
    expect(mqttTopic('', 'devices/up')).toBe('/devices/up');
    expect(mqttTopic(undefined, 'up')).toBe('/up');
    expect(mqttTopic('base', '')).toBe('base/');
    expect(mqttTopic(undefined, undefined)).toBe('/');
  });

  it('combines NATS subjects as TTS combineSubjects: dots trimmed, one between', () => {
    expect(natsSubject('lorawan.app1', 'up')).toBe('lorawan.app1.up');
    expect(natsSubject('.lorawan.app1.', '..up.')).toBe('lorawan.app1.up');
    expect(natsSubject('', 'up')).toBe('up');
    expect(natsSubject('base', undefined)).toBe('base');
  });

  it('names the topic of an enabled message kind only, by provider', () => {
    const pubsub = {
      ids: { application_ids: { application_id: 'app1' }, pub_sub_id: 'ps1' },
      base_topic: 'acme',
      uplink_message: { topic: 'up' },
      join_accept: {},
      downlink_push: { topic: 'down/push' },
    } as ApplicationPubSub;
    expect(topicOf(pubsub, 'mqtt', 'uplink_message')).toBe('acme/up');
    expect(topicOf(pubsub, 'nats', 'uplink_message')).toBe('acme.up');
    expect(topicOf(pubsub, 'mqtt', 'join_accept')).toBe('acme/');
    expect(topicOf(pubsub, 'mqtt', 'downlink_push')).toBe('acme/down/push');
    expect(topicOf(pubsub, 'mqtt', 'downlink_ack')).toBeUndefined();
  });

  it('subscribes MQTT downlink topics as shared subscriptions of a group, or plainly', () => {
    expect(mqttSubscription('acme/down/push', 'lorawan-as')).toBe('$share/lorawan-as/acme/down/push');
    expect(mqttSubscription('acme/down/push', undefined)).toBe('acme/down/push');
  });

  it('tells the provider of the oneof', () => {
    expect(providerOf({ nats: { server_url: 'nats://h' } })).toBe('nats');
    expect(providerOf({ mqtt: { server_url: 'mqtt://h' } })).toBe('mqtt');
    expect(providerOf({})).toBeUndefined();
  });
});
