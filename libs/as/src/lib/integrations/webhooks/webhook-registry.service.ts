import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  ALLOWED_PATHS,
  type ApplicationWebhook,
  ApplicationWebhook as ApplicationWebhookMessage,
  type ApplicationWebhookIdentifiers,
  checkFieldMaskPaths,
  decodeMessage,
  type GetApplicationWebhookRequest,
  type ListApplicationWebhooksRequest,
  nowTimestamp,
  type RpcContext,
  selectFields,
  applyFields,
  type SetApplicationWebhookRequest,
  WEBHOOK_FORMATS,
  WEBHOOK_MESSAGE_FIELDS,
} from '@lorawan/api';
import { WithTotal } from '@lorawan/component';
import { ErrValidation } from '@lorawan/errors';
import { ErrReadOnlyField, ErrWebhookFormatNotFound, ErrWebhookNotFound } from '../../errors';
import { WEBHOOK_STORE, type WebhookStore } from './webhook.store';
import { ACTIVE_WEBHOOKS_CACHE, type ApplicationCache } from '../../common/application-cache';
import { headerProblem } from './webhook-headers';
import { mayReadSettingsSecrets } from '../common/settings-secrets';

/** Always returned (TTS `grpc_webhooks.go`): paths ∪ these. */
const DEFAULT_PATHS = ['ids', 'created_at', 'updated_at', 'base_url', 'format'];
const ID_PATHS = ['ids', 'ids.application_ids', 'ids.application_ids.application_id', 'ids.webhook_id'];
/**
 * The secrets of a webhook (its downlink API key, and its headers, which often carry the receiver's
 * credentials): shown only to callers who could Set them (basic settings), never to readers of
 * traffic.
 */
const SECRETS = ['downlink_api_key', 'headers'] as const;

/**
 * The seed's default: "a webhook created with only a base URL delivers uplinks to `<base>/up` and
 * join-accepts to `<base>/join`". A new webhook that enables no message kind gets these two.
 */
export const DEFAULT_WEBHOOK_MESSAGES = { uplink_message: { path: '/up' }, join_accept: { path: '/join' } } as const;
/** The format of a new webhook that names none. */
export const DEFAULT_WEBHOOK_FORMAT = 'json';

type Empty = Record<string, never>;

/**
 * The ApplicationWebhookRegistry (TTS `pkg/applicationserver/io/web/grpc_webhooks.go` and its
 * Redis registry). TTS publishes no events for webhooks, so neither does this.
 */
@Injectable()
export class WebhookRegistryService {
  constructor(
    @Inject(WEBHOOK_STORE) private readonly store: WebhookStore,
    /** The delivery path's cache of active webhooks: dropped (on every replica) after each write. */
    @Optional() @Inject(ACTIVE_WEBHOOKS_CACHE) private readonly activeWebhooks?: ApplicationCache<ApplicationWebhook[]>,
  ) {}

  getFormats(): { formats: Record<string, string> } {
    return { formats: { ...WEBHOOK_FORMATS } };
  }

  async get({ ids, field_mask }: GetApplicationWebhookRequest, ctx: RpcContext): Promise<Partial<ApplicationWebhook>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['ApplicationWebhookRegistry.Get']);
    const webhook = await this.store.get(ids.application_ids.application_id, ids.webhook_id);
    if (!webhook) throw ErrWebhookNotFound.with();
    return present(webhook, paths, ctx);
  }

  async list(
    { application_ids, field_mask }: ListApplicationWebhooksRequest,
    ctx: RpcContext,
  ): Promise<WithTotal<{ webhooks?: Partial<ApplicationWebhook>[] }>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['ApplicationWebhookRegistry.List']);
    const webhooks = (await this.store.list(application_ids.application_id)).map((w) => present(w, paths, ctx));
    return new WithTotal(webhooks.length > 0 ? { webhooks } : {}, webhooks.length);
  }

  /** Upsert: a new webhook takes the masked paths (plus ids and the defaults); an existing one only the masked paths, ids read-only. */
  async set({ webhook, field_mask }: SetApplicationWebhookRequest, ctx: RpcContext): Promise<Partial<ApplicationWebhook>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['ApplicationWebhookRegistry.Set']);
    const { application_ids, webhook_id } = webhook.ids;
    const existing = await this.store.get(application_ids.application_id, webhook_id);
    const now = nowTimestamp();
    let next: ApplicationWebhook;
    if (existing) {
      const readOnly = paths.find((p) => ID_PATHS.includes(p));
      if (readOnly) throw ErrReadOnlyField.with({ field: readOnly });
      next = { ...applyFields(existing, webhook, paths), ids: existing.ids, created_at: existing.created_at, updated_at: now };
    } else {
      const fields = applyFields(
        {} as ApplicationWebhook,
        webhook,
        paths.filter((p) => !ID_PATHS.includes(p)),
      );
      next = {
        ...withDefaults(fields),
        ids: { application_ids: { application_id: application_ids.application_id }, webhook_id },
        created_at: now,
        updated_at: now,
      };
    }
    const validated = validateWebhook(next);
    await this.store.put(validated);
    this.activeWebhooks?.invalidate(application_ids.application_id);
    return present(validated, paths, ctx);
  }

  /** Idempotent: deleting a missing webhook also answers `{}` (TTS). */
  async delete({ application_ids, webhook_id }: ApplicationWebhookIdentifiers): Promise<Empty> {
    await this.store.delete(application_ids.application_id, webhook_id);
    this.activeWebhooks?.invalidate(application_ids.application_id);
    return {};
  }
}

function withDefaults(webhook: ApplicationWebhook): ApplicationWebhook {
  const enablesNone = WEBHOOK_MESSAGE_FIELDS.every((f) => webhook[f] === undefined || webhook[f] === null);
  return {
    ...webhook,
    ...(webhook.format ? {} : { format: DEFAULT_WEBHOOK_FORMAT }),
    ...(enablesNone ? { uplink_message: { ...DEFAULT_WEBHOOK_MESSAGES.uplink_message }, join_accept: { ...DEFAULT_WEBHOOK_MESSAGES.join_accept } } : {}),
  };
}

/** The whole result, re-validated: the contract's rules plus the AS's own (base URL, format, headers: `webhook-headers.ts`). */
export function validateWebhook(webhook: ApplicationWebhook): ApplicationWebhook {
  // A JSON round trip: the webhook as plain JSON data (what is stored), typed as the message it was.
  const plain: ApplicationWebhook = JSON.parse(JSON.stringify(dropNulls(webhook)));
  const decoded = decodeMessage(ApplicationWebhookMessage, plain);
  if (!decoded.base_url) throw ErrValidation.with({ field: 'base_url', name: 'ApplicationWebhookValidationError', reason: 'value is required' });
  if (!isHttpUrl(decoded.base_url))
    throw ErrValidation.with({ field: 'base_url', name: 'ApplicationWebhookValidationError', reason: 'value must be an absolute http or https URL' });
  for (const [header, value] of Object.entries(decoded.headers ?? {})) {
    const reason = headerProblem(header, value);
    if (reason !== undefined) throw ErrValidation.with({ field: `headers[${header}]`, name: 'ApplicationWebhookValidationError', reason });
  }
  const format = decoded.format ?? DEFAULT_WEBHOOK_FORMAT;
  // TTS accepts any well-formed format and fails every delivery; this stack delivers JSON only, so it refuses others at once.
  if (!(format in WEBHOOK_FORMATS)) throw ErrWebhookFormatNotFound.with({ format });
  return plain;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
  } catch {
    return false;
  }
}

/** `null` clears a field (clients reset `health_status` that way): stored as absent. */
function dropNulls(webhook: ApplicationWebhook): ApplicationWebhook {
  const out = { ...webhook };
  for (const [field, value] of Object.entries(out)) if (value === null || value === undefined) Reflect.deleteProperty(out, field);
  return out;
}

/** What a caller sees: default paths ∪ mask; the secrets only for callers who could Set the webhook. */
function present(webhook: ApplicationWebhook, paths: readonly string[], ctx: RpcContext): Partial<ApplicationWebhook> {
  const selected = selectFields(webhook, [...DEFAULT_PATHS, ...paths]);
  if (mayReadSettingsSecrets(ctx)) return selected;
  for (const secret of SECRETS) delete selected[secret];
  return selected;
}
