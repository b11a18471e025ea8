import { type Delivery, messageConfig } from './webhook-job';
import { filterByFieldMask } from '../../common/field-mask-filter';
import { urlVariables, webhookUrl } from './webhook-url';
import { deliverableHeaders } from '../webhook-headers';

/** Sent as `User-Agent` (TTS sends `TheThingsStack/<version> (<os>/<arch>)`). */
export const USER_AGENT = `lorawan-stack-ts/0.1 (${process.platform}/${process.arch})`;

/** The host of PUBLIC_URL (one value per process: parsed once, not per request). */
let publicHost: { url: string; host: string } | undefined;
function hostOf(publicUrl: string): string {
  if (publicHost?.url !== publicUrl) publicHost = { url: publicUrl, host: new URL(publicUrl).host };
  return publicHost.host;
}

export interface WebhookRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
}

/**
 * The HTTP request of a JSON job (wire contract §8.2): URL from the templates, the webhook's
 * headers verbatim (those it may send: `webhook-headers.ts`), then ours (replacing any of the same name in another case), and the
 * ApplicationUp filtered by the webhook's field mask. Throws when the URL cannot be built.
 */
export function buildWebhookRequest(job: Delivery, publicUrl: string): WebhookRequest {
  const { webhook, up } = job;
  const url = webhookUrl(webhook.base_url ?? '', messageConfig(webhook, job.kind)?.path, urlVariables(up.end_device_ids));
  const ours: Record<string, string> = { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT };
  if (webhook.downlink_api_key) {
    const device = `${publicUrl}/as/applications/${webhook.ids.application_ids.application_id}/webhooks/${webhook.ids.webhook_id}/devices/${up.end_device_ids.device_id}`;
    ours['X-Downlink-Apikey'] = webhook.downlink_api_key;
    ours['X-Downlink-Push'] = `${device}/down/push`;
    ours['X-Downlink-Replace'] = `${device}/down/replace`;
  }
  ours['X-Tts-Domain'] = hostOf(publicUrl);
  const replaced = new Set(Object.keys(ours).map((name) => name.toLowerCase()));
  // Built with Object.fromEntries, which defines each name as an own property: an assignment
  // `headers[name] = value` would set the object's prototype for a header named `__proto__`.
  // Headers a webhook may not send (hop-by-hop, `Host`, `Content-Length`, malformed: stored before Set refused them) are left out.
  const headers: Record<string, string> = Object.fromEntries(deliverableHeaders(webhook.headers).filter(([name]) => !replaced.has(name.toLowerCase())));
  Object.assign(headers, ours);
  const body = JSON.stringify(filterByFieldMask(up as Record<string, unknown>, webhook.field_mask?.paths));
  return { url, headers, body };
}
