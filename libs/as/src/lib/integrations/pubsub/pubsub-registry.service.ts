import { createPrivateKey, X509Certificate } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  ALLOWED_PATHS,
  AS_EVENTS,
  type ApplicationPubSub,
  ApplicationPubSub as ApplicationPubSubMessage,
  type ApplicationPubSubIdentifiers,
  applyFields,
  checkFieldMaskPaths,
  decodeMessage,
  type GetApplicationPubSubRequest,
  type ListApplicationPubSubsRequest,
  nowTimestamp,
  PUBSUB_FORMATS,
  PUBSUB_PROVIDER_KEYS,
  pubsubJsonPaths,
  type RpcContext,
  selectFields,
  type SetApplicationPubSubRequest,
} from '@lorawan/api';
import { EventPublisher, WithTotal } from '@lorawan/component';
import { ErrValidation } from '@lorawan/errors';
import { ErrEntityNotFound, ErrReadOnlyField } from '../../errors';
import { ErrNoProvider, ErrProviderDisabled, ErrPubSubFormatNotFound } from './pubsub.errors';
import { PUBSUB_STORE, type PubSubStore } from './pubsub.store';
import { PUBSUB_CHANGES, type PubSubChanges } from './pubsub-changes';
import { mayReadSettingsSecrets } from '../common/settings-secrets';

/** Always returned (TTS `appendImplicitPubSubGetPaths`, plus the identifiers and timestamps): paths ∪ these. */
const DEFAULT_PATHS = ['ids', 'created_at', 'updated_at', 'format', 'provider', 'base_topic'];
const ID_PATHS = ['ids', 'ids.application_ids', 'ids.application_ids.application_id', 'ids.pub_sub_id'];
/** The format of a new Pub/Sub that names none. */
export const DEFAULT_PUBSUB_FORMAT = 'json';
/** URL schemes of each provider (TTS: `mqtt`/`mqtts` as `tcp`/`ssl`; MQTT.js also speaks WebSocket). */
const SCHEMES = { nats: ['nats:', 'tls:'], mqtt: ['mqtt:', 'mqtts:', 'tcp:', 'ssl:', 'tls:', 'ws:', 'wss:'] } as const;

type Empty = Record<string, never>;

/**
 * The ApplicationPubSubRegistry (TTS `pkg/applicationserver/io/pubsub/grpc_pubsub.go` and its
 * registry). Every write re-opens (or closes) the Pub/Sub's connection on every AS replica
 * (PubSubChanges) and publishes `as.pubsub.set` / `as.pubsub.delete`. The secrets (the MQTT
 * password, TLS client key and headers, a NATS URL's password) are shown only to callers who could
 * Set them (basic settings), never to readers of traffic.
 */
@Injectable()
export class PubSubRegistryService {
  constructor(
    @Inject(PUBSUB_STORE) private readonly store: PubSubStore,
    @Inject(EventPublisher) private readonly events: EventPublisher,
    @Optional() @Inject(PUBSUB_CHANGES) private readonly changes?: PubSubChanges,
  ) {}

  getFormats(): { formats: Record<string, string> } {
    return { formats: { ...PUBSUB_FORMATS } };
  }

  async get({ ids, field_mask }: GetApplicationPubSubRequest, ctx: RpcContext): Promise<Partial<ApplicationPubSub>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['ApplicationPubSubRegistry.Get']);
    const pubsub = await this.store.get(ids.application_ids.application_id, ids.pub_sub_id);
    if (!pubsub) throw ErrEntityNotFound.with();
    return present(pubsub, paths, ctx);
  }

  async list({ application_ids, field_mask }: ListApplicationPubSubsRequest, ctx: RpcContext): Promise<WithTotal<{ pubsubs?: Partial<ApplicationPubSub>[] }>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['ApplicationPubSubRegistry.List']);
    const pubsubs = (await this.store.list(application_ids.application_id)).map((p) => present(p, paths, ctx));
    return new WithTotal(pubsubs.length > 0 ? { pubsubs } : {}, pubsubs.length);
  }

  /** Upsert: a new Pub/Sub takes the masked paths (plus ids and the defaults); an existing one only the masked paths, ids read-only. */
  async set({ pubsub, field_mask }: SetApplicationPubSubRequest, ctx: RpcContext): Promise<Partial<ApplicationPubSub>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['ApplicationPubSubRegistry.Set']);
    const { application_ids, pub_sub_id } = pubsub.ids;
    const existing = await this.store.get(application_ids.application_id, pub_sub_id);
    const readOnly = existing && paths.find((p) => ID_PATHS.includes(p));
    if (readOnly) throw ErrReadOnlyField.with({ field: readOnly });
    const jsonPaths = paths.filter((p) => !ID_PATHS.includes(p)).flatMap(pubsubJsonPaths);
    const now = nowTimestamp();
    const applied = withOneProvider(applyFields(existing ?? ({} as ApplicationPubSub), pubsub, jsonPaths), pubsub, jsonPaths);
    const next: ApplicationPubSub = {
      ...applied,
      ...(applied.format ? {} : { format: DEFAULT_PUBSUB_FORMAT }),
      ids: { application_ids: { application_id: application_ids.application_id }, pub_sub_id },
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    const validated = validatePubSub(next);
    await this.store.put(validated);
    await this.changes?.changed(validated.ids);
    this.events.publish(AS_EVENTS.pubsubSet, { application_ids: { application_id: application_ids.application_id } }, { ctx, data: validated.ids });
    return present(validated, paths, ctx);
  }

  /** Idempotent: deleting a missing Pub/Sub also answers `{}` (TTS). */
  async delete(ids: ApplicationPubSubIdentifiers, ctx: RpcContext): Promise<Empty> {
    const deleted = await this.store.delete(ids.application_ids.application_id, ids.pub_sub_id);
    await this.changes?.changed(ids);
    if (deleted) this.events.publish(AS_EVENTS.pubsubDelete, { application_ids: { application_id: ids.application_ids.application_id } }, { ctx, data: ids });
    return {};
  }
}

/** The `provider` oneof: a provider the request sets (under its mask) replaces the one stored. */
function withOneProvider(applied: ApplicationPubSub, request: ApplicationPubSub, jsonPaths: readonly string[]): ApplicationPubSub {
  const set = PUBSUB_PROVIDER_KEYS.filter((key) => request[key] && jsonPaths.some((p) => p === key || p.startsWith(`${key}.`)));
  if (set.length !== 1) return applied;
  const out = { ...applied };
  for (const key of PUBSUB_PROVIDER_KEYS) if (key !== set[0]) delete out[key];
  return out;
}

const invalid = (field: string, reason: string) => ErrValidation.with({ field, name: 'ApplicationPubSubValidationError', reason });

/** The whole result, re-validated: the contract's rules plus the AS's own (one provider this stack runs, its URL, TLS material, format). */
export function validatePubSub(pubsub: ApplicationPubSub): ApplicationPubSub {
  const plain: ApplicationPubSub = JSON.parse(JSON.stringify(dropNulls(pubsub)));
  const decoded = decodeMessage(ApplicationPubSubMessage, plain);
  if (decoded.aws_iot) throw ErrProviderDisabled.with({ provider: 'aws_iot' });
  const providers = (['nats', 'mqtt'] as const).filter((key) => decoded[key]);
  if (providers.length !== 1) throw ErrNoProvider.with();
  const provider = providers[0];
  const serverUrl = decoded[provider]?.server_url;
  if (!serverUrl) throw invalid(`${provider}.server_url`, 'value is required');
  if (!urlOf(serverUrl, SCHEMES[provider]))
    throw invalid(`${provider}.server_url`, `value must be a URL with scheme ${SCHEMES[provider].map((s) => s.slice(0, -1)).join(', ')}`);
  if (decoded.mqtt) checkTls(decoded.mqtt);
  const format = decoded.format ?? DEFAULT_PUBSUB_FORMAT;
  if (!(format in PUBSUB_FORMATS)) throw ErrPubSubFormatNotFound.with({ format });
  return plain;
}

/** PEM certificates (one or more) and a PEM private key that matches the client certificate; reasons never quote the key. */
function checkTls(mqtt: NonNullable<ApplicationPubSub['mqtt']>): void {
  const pem = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
  const certificates = (field: string, b64: string) => {
    const blocks = pem(b64).match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    if (blocks.length === 0) throw invalid(field, 'value must be PEM certificates');
    try {
      return blocks.map((block) => new X509Certificate(block));
    } catch {
      throw invalid(field, 'value must be PEM certificates');
    }
  };
  if (mqtt.tls_ca) certificates('mqtt.tls_ca', mqtt.tls_ca);
  const cert = mqtt.tls_client_cert ? certificates('mqtt.tls_client_cert', mqtt.tls_client_cert)[0] : undefined;
  if (!mqtt.tls_client_key) {
    if (cert) throw invalid('mqtt.tls_client_key', 'a TLS client certificate needs its key');
    return;
  }
  let key;
  try {
    key = createPrivateKey(pem(mqtt.tls_client_key));
  } catch {
    throw invalid('mqtt.tls_client_key', 'value must be a PEM private key');
  }
  if (!cert) throw invalid('mqtt.tls_client_cert', 'a TLS client key needs its certificate');
  if (!cert.checkPrivateKey(key)) throw invalid('mqtt.tls_client_key', 'the key does not match the client certificate');
}

function urlOf(value: string, schemes: readonly string[]): URL | undefined {
  try {
    const url = new URL(value);
    return schemes.includes(url.protocol) && url.hostname !== '' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** `null` clears a field: stored as absent. */
function dropNulls(pubsub: ApplicationPubSub): ApplicationPubSub {
  const out = { ...pubsub };
  for (const [field, value] of Object.entries(out)) if (value === null || value === undefined) Reflect.deleteProperty(out, field);
  return out;
}

/** What a caller sees: default paths ∪ mask (as JSON paths); the secrets only for callers who could Set the Pub/Sub. */
export function present(pubsub: ApplicationPubSub, paths: readonly string[], ctx: RpcContext): Partial<ApplicationPubSub> {
  const selected = selectFields(pubsub, [...DEFAULT_PATHS, ...paths].flatMap(pubsubJsonPaths));
  if (mayReadSettingsSecrets(ctx)) return selected;
  return withoutSecrets(selected);
}

/** A Pub/Sub without its secrets: what readers of traffic, logs and events may see. */
export function withoutSecrets<T extends Partial<ApplicationPubSub>>(pubsub: T): T {
  const out = { ...pubsub };
  if (out.mqtt) {
    const { password: _password, tls_client_key: _key, headers: _headers, ...mqtt } = out.mqtt;
    out.mqtt = mqtt;
  }
  if (out.nats?.server_url) out.nats = { ...out.nats, server_url: withoutPassword(out.nats.server_url) };
  return out;
}

/** A URL without the password of its user information. */
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
