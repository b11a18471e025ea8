import { emptyForm, formOf, setRequest, withoutSecrets, type PubSub, type PubSubForm } from './pubsub';

const stored: PubSub = {
  ids: { application_ids: { application_id: 'app' }, pub_sub_id: 'broker' },
  format: 'json',
  base_topic: 'base',
  mqtt: {
    server_url: 'mqtts://broker.example.com:8883',
    client_id: 'c1',
    username: 'u',
    password: 'secret',
    publish_qos: 'AT_LEAST_ONCE',
    tls_client_key: 'S0VZ',
  },
  uplink_message: { topic: 'up' },
  downlink_push: {},
};

describe('Pub/Sub forms', () => {
  it('never carries a secret back: no password, TLS key or header values; a NATS URL without its password', () => {
    expect(withoutSecrets(stored).mqtt).toEqual({
      server_url: 'mqtts://broker.example.com:8883',
      client_id: 'c1',
      username: 'u',
      publish_qos: 'AT_LEAST_ONCE',
    });
    const nats = withoutSecrets({ ids: { pub_sub_id: 'n1' }, nats: { server_url: 'nats://as:pw@nats.example.com:4222' } });
    expect(nats.nats?.server_url).toBe('nats://as@nats.example.com:4222');
    const form = formOf(stored);
    expect(form).toMatchObject({ id: 'broker', provider: 'mqtt', password: '', qos: 'AT_LEAST_ONCE', messages: { uplink_message: 'up', downlink_push: '' } });
    expect(JSON.stringify(form)).not.toContain('secret');
  });

  it('creates a NATS Pub/Sub with its URL, format, base topic and the enabled messages (the others cleared)', () => {
    const form: PubSubForm = { ...emptyForm(), id: 'n1', server_url: 'nats://127.0.0.1:4222', base_topic: 'lorawan' };
    const { pubsub, field_mask } = setRequest(form);
    expect(pubsub).toEqual({
      ids: { pub_sub_id: 'n1' },
      format: 'json',
      base_topic: 'lorawan',
      nats: { server_url: 'nats://127.0.0.1:4222' },
      uplink_message: { topic: 'up' },
      join_accept: { topic: 'join' },
    });
    expect(field_mask.paths).toEqual(
      expect.arrayContaining(['format', 'base_topic', 'provider.nats.server_url', 'uplink_message', 'downlink_push', 'service_data']),
    );
  });

  it('keeps stored secrets on an edit that leaves them empty: no password path, no NATS URL path when the URL is as shown', () => {
    const before = formOf(stored);
    const kept = setRequest({ ...before, base_topic: 'other' }, before);
    expect(kept.field_mask.paths).not.toContain('provider.mqtt.password');
    expect(kept.pubsub.mqtt).not.toHaveProperty('password');
    expect(kept.field_mask.paths).toContain('provider.mqtt.server_url');
    const changed = setRequest({ ...before, password: 'new' }, before);
    expect([changed.field_mask.paths.includes('provider.mqtt.password'), (changed.pubsub.mqtt as { password?: string }).password]).toEqual([true, 'new']);

    const natsBefore = formOf({ ids: { pub_sub_id: 'n1' }, nats: { server_url: 'nats://as:pw@nats.example.com:4222' } });
    expect(setRequest(natsBefore, natsBefore).field_mask.paths).not.toContain('provider.nats.server_url');
    const moved = setRequest({ ...natsBefore, server_url: 'nats://as:pw2@other.example.com:4222' }, natsBefore);
    expect(moved.pubsub.nats).toEqual({ server_url: 'nats://as:pw2@other.example.com:4222' });
  });

  it('switching the provider sets the new one whole', () => {
    const before = formOf(stored);
    const { pubsub, field_mask } = setRequest({ ...before, provider: 'nats', server_url: 'nats://127.0.0.1:4222' }, before);
    expect(pubsub.nats).toEqual({ server_url: 'nats://127.0.0.1:4222' });
    expect(pubsub).not.toHaveProperty('mqtt');
    expect(field_mask.paths).toContain('provider.nats.server_url');
  });
});
