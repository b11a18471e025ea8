import { ALLOWED_PATHS, type ApplicationPubSub, decodeMessage, Right, type RpcContext, SetApplicationPubSubRequest } from '@lorawan/api';
import type { EventPublisher } from '@lorawan/component';
import { Code, StackError } from '@lorawan/errors';
import { PubSubRegistryService, withoutPassword } from './pubsub-registry.service';
import type { PubSubStore } from './pubsub.store';
import { errorOf } from '../../testing/as-test-kit';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCertificates } from '@lorawan/testing';

/** A CA, a client certificate and its key (openssl), base64 as the contract holds `bytes`. */
let TLS: { ca: string; cert: string; key: string; otherKey: string };
beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'lw-pubsub-tls-'));
  try {
    const files = makeCertificates(dir);
    const b64 = (file: string) => readFileSync(file).toString('base64');
    TLS = { ca: b64(files.ca), cert: b64(files.clientCert), key: b64(files.clientKey), otherKey: b64(files.serverKey) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

class MemoryPubSubStore implements PubSubStore {
  readonly rows = new Map<string, ApplicationPubSub>();
  private key = (a: string, p: string) => `${a}/${p}`;
  async get(a: string, p: string) {
    const found = this.rows.get(this.key(a, p));
    return found ? structuredClone(found) : undefined;
  }
  async list(a: string) {
    return [...this.rows.values()].filter((p) => p.ids.application_ids.application_id === a).map((p) => structuredClone(p));
  }
  async listAll() {
    return [...this.rows.values()].map((p) => structuredClone(p));
  }
  async put(p: ApplicationPubSub) {
    this.rows.set(this.key(p.ids.application_ids.application_id, p.ids.pub_sub_id), structuredClone(p));
  }
  async delete(a: string, p: string) {
    return this.rows.delete(this.key(a, p));
  }
}

const callerWith = (rights: Right[]): RpcContext => ({
  request_id: 'r',
  correlation_ids: [],
  caller: { kind: 'api-key', id: 'k', is_admin: false, key_rights: [], universal: false, rights },
});
const writer = callerWith([Right.RIGHT_APPLICATION_SETTINGS_BASIC, Right.RIGHT_APPLICATION_TRAFFIC_READ, Right.RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE]);
const reader = callerWith([Right.RIGHT_APPLICATION_TRAFFIC_READ]);
const ids = (pub_sub_id = 'ps1') => ({ application_ids: { application_id: 'app1' }, pub_sub_id });

function setRequest(pubsub: Record<string, unknown>, paths: string[]): SetApplicationPubSubRequest {
  return decodeMessage(SetApplicationPubSubRequest, { pubsub: { ids: ids(), ...pubsub }, field_mask: { paths } });
}

const MQTT = {
  server_url: 'mqtts://broker.example.com:8883',
  client_id: 'as-1',
  username: 'user',
  password: 'broker-secret',
  publish_qos: 'AT_LEAST_ONCE',
  headers: { Authorization: 'Bearer header-secret' },
};
const MQTT_PATHS = ['provider.mqtt', 'base_topic', 'uplink_message', 'downlink_push'];

describe('PubSubRegistryService', () => {
  let store: MemoryPubSubStore;
  let changes: { changed: jest.Mock };
  let events: { publish: jest.Mock };
  let service: PubSubRegistryService;
  beforeEach(() => {
    store = new MemoryPubSubStore();
    changes = { changed: jest.fn().mockResolvedValue(undefined) };
    events = { publish: jest.fn() };
    service = new PubSubRegistryService(store, events as unknown as EventPublisher, changes);
  });

  it('answers the formats as TTS: JSON only', () => {
    expect(service.getFormats()).toEqual({ formats: { json: 'JSON' } });
  });

  it('allows TTS field-mask paths (provider.mqtt.password …) derived from the contract', () => {
    const allowed = ALLOWED_PATHS['ApplicationPubSubRegistry.Set'];
    for (const p of [
      'provider',
      'provider.mqtt',
      'provider.mqtt.password',
      'provider.nats.server_url',
      'base_topic',
      'uplink_message.topic',
      'downlink_push.topic',
    ])
      expect(allowed.has(p)).toBe(true);
    expect(allowed.has('mqtt.password')).toBe(false);
  });

  it('creates an MQTT Pub/Sub with the defaults, reopens it everywhere and publishes as.pubsub.set with its identifiers only', async () => {
    const created = await service.set(
      setRequest({ mqtt: MQTT, base_topic: 'acme', uplink_message: { topic: 'up' }, downlink_push: { topic: 'push' } }, MQTT_PATHS),
      writer,
    );
    expect(created).toMatchObject({
      ids: ids(),
      format: 'json',
      base_topic: 'acme',
      mqtt: MQTT,
      uplink_message: { topic: 'up' },
      downlink_push: { topic: 'push' },
    });
    expect(created.created_at).toBeDefined();
    expect(changes.changed).toHaveBeenCalledWith(ids());
    expect(events.publish).toHaveBeenCalledTimes(1);
    const [definition, identifiers, options] = events.publish.mock.calls[0];
    expect(definition.name).toBe('as.pubsub.set');
    expect(identifiers).toEqual({ application_ids: { application_id: 'app1' } });
    expect(JSON.stringify(options)).not.toContain('secret');
  });

  it('hides the secrets (password, TLS key, headers, a NATS URL password) from a traffic reader, shows them to a settings writer', async () => {
    const tls = { use_tls: true, tls_ca: TLS.ca, tls_client_cert: TLS.cert, tls_client_key: TLS.key };
    await service.set(setRequest({ mqtt: { ...MQTT, ...tls } }, ['provider.mqtt']), writer);
    const seen = await service.get({ ids: ids(), field_mask: { paths: ['provider.mqtt'] } }, reader);
    expect(seen.mqtt).toEqual({
      server_url: MQTT.server_url,
      client_id: 'as-1',
      username: 'user',
      publish_qos: 'AT_LEAST_ONCE',
      use_tls: true,
      tls_ca: TLS.ca,
      tls_client_cert: TLS.cert,
    });
    expect(JSON.stringify(seen)).not.toContain('secret');
    expect(JSON.stringify(seen)).not.toContain(TLS.key);
    expect((await service.get({ ids: ids(), field_mask: { paths: ['provider.mqtt'] } }, writer)).mqtt).toEqual({ ...MQTT, ...tls });
    await service.set(
      setRequest({ ids: ids('ps2'), nats: { server_url: 'nats://alice:nats-secret@nats.example.com:4222' } }, ['provider.nats.server_url']),
      writer,
    );
    const listed = await service.list({ application_ids: { application_id: 'app1' } }, reader);
    expect(JSON.stringify(listed)).not.toContain('secret');
    expect(withoutPassword('nats://alice:nats-secret@nats.example.com:4222')).toBe('nats://alice@nats.example.com:4222');
  });

  it('switches the provider oneof: setting NATS drops the stored MQTT provider', async () => {
    await service.set(setRequest({ mqtt: MQTT }, ['provider.mqtt']), writer);
    const updated = await service.set(setRequest({ nats: { server_url: 'nats://127.0.0.1:4222' } }, ['provider.nats']), writer);
    expect(updated.nats).toEqual({ server_url: 'nats://127.0.0.1:4222' });
    expect(updated.mqtt).toBeUndefined();
    expect((await store.get('app1', 'ps1'))?.mqtt).toBeUndefined();
  });

  it.each([
    ['aws_iot', { aws_iot: { region: 'eu-west-1' } }, ['provider.aws_iot'], 'pkg/applicationserver/io/pubsub:provider_disabled'],
    ['no provider', { base_topic: 'x' }, ['base_topic'], 'pkg/applicationserver/io/pubsub:no_provider'],
    ['no server URL', { nats: {} }, ['provider.nats'], 'pkg/errors:validation'],
    ['an HTTP URL for NATS', { nats: { server_url: 'http://h:80' } }, ['provider.nats.server_url'], 'pkg/errors:validation'],
    [
      'a format other than JSON',
      { nats: { server_url: 'nats://h:4222' }, format: 'protobuf' },
      ['provider.nats', 'format'],
      'pkg/applicationserver/io/pubsub:format_not_found',
    ],
    [
      'a TLS CA that is not PEM',
      { mqtt: { server_url: 'mqtts://h:8883', use_tls: true, tls_ca: Buffer.from('not a certificate').toString('base64') } },
      ['provider.mqtt'],
      'pkg/errors:validation',
    ],
    [
      'a client key that is not PEM',
      { mqtt: { server_url: 'mqtts://h:8883', tls_client_cert: '__CERT__', tls_client_key: Buffer.from('key').toString('base64') } },
      ['provider.mqtt'],
      'pkg/errors:validation',
    ],
    [
      'a client key of another certificate',
      { mqtt: { server_url: 'mqtts://h:8883', tls_client_cert: '__CERT__', tls_client_key: '__OTHER_KEY__' } },
      ['provider.mqtt'],
      'pkg/errors:validation',
    ],
    ['a path of another registry', { nats: { server_url: 'nats://h:4222' } }, ['base_url'], 'pkg/rpcmiddleware/validator:field_mask_paths'],
  ])('refuses %s with a 400-class error and stores nothing', async (_what, pubsub, paths, expected) => {
    const withTls = JSON.parse(JSON.stringify(pubsub).replace('__CERT__', TLS.cert).replace('__OTHER_KEY__', TLS.otherKey)) as Record<string, unknown>;
    const err = await errorOf(service.set(setRequest(withTls, paths), writer));
    expect(err.message).not.toContain('PRIVATE');
    expect(err).toBeInstanceOf(StackError);
    expect(`${err.namespace}:${err.errorName}`).toBe(expected);
    expect([Code.InvalidArgument, Code.FailedPrecondition]).toContain(err.code); // HTTP 400 both
    expect(store.rows.size).toBe(0);
    expect(changes.changed).not.toHaveBeenCalled();
  });

  it('refuses to change the identifiers of an existing Pub/Sub', async () => {
    await service.set(setRequest({ nats: { server_url: 'nats://h:4222' } }, ['provider.nats']), writer);
    const err = await errorOf(service.set(setRequest({}, ['ids.pub_sub_id']), writer));
    expect(err.errorName).toBe('read_only_field');
  });

  it('answers not_found for a missing one, deletes idempotently and closes it everywhere', async () => {
    expect((await errorOf(service.get({ ids: ids('nope') }, reader))).errorName).toBe('not_found');
    await service.set(setRequest({ nats: { server_url: 'nats://h:4222' } }, ['provider.nats']), writer);
    await expect(service.delete(ids(), writer)).resolves.toEqual({});
    await expect(service.delete(ids(), writer)).resolves.toEqual({});
    expect(store.rows.size).toBe(0);
    expect(changes.changed).toHaveBeenLastCalledWith(ids());
    expect(events.publish.mock.calls.map((c) => c[0].name)).toEqual(['as.pubsub.set', 'as.pubsub.delete']);
  });
});
