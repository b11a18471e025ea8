import urlTemplate from 'url-template';
import type { ApplicationUpJson } from '@lorawan/api';

/** The RFC 6570 variables of a webhook URL (TTS `webhooks.go` `expandVariables`); EUIs and DevAddr upper-case hex. */
export function urlVariables(ids: ApplicationUpJson['end_device_ids']): Record<string, string | undefined> {
  const upper = (v: unknown) => (typeof v === 'string' && v !== '' ? v.toUpperCase() : undefined);
  const appId = ids.application_ids.application_id;
  const joinEui = upper(ids.join_eui);
  return {
    appID: appId,
    applicationID: appId,
    devID: ids.device_id,
    deviceID: ids.device_id,
    devEUI: upper(ids.dev_eui),
    joinEUI: joinEui,
    appEUI: joinEui,
    devAddr: upper(ids.dev_addr),
  };
}

/** Parsed templates by text: a webhook's few templates are parsed once, not for every message. */
const templates = new Map<string, ReturnType<typeof urlTemplate.parse>>();
const MAX_CACHED_TEMPLATES = 10_000;

function expand(template: string, variables: Record<string, string | undefined>): string {
  let parsed = templates.get(template);
  if (!parsed) {
    if (templates.size >= MAX_CACHED_TEMPLATES) templates.clear();
    parsed = urlTemplate.parse(template);
    templates.set(template, parsed);
  }
  return parsed.expand(variables);
}

/**
 * The URL a message goes to: `base_url` and the message's `path` each expanded as a URI template,
 * then joined as TTS does: when the path has a path part (not only a query), exactly one `/`
 * separates the base path from it (a leading `/` of the path does not mean the root), and the
 * result is the RFC 3986 resolution of the path against the base. Throws on an invalid URL.
 */
export function webhookUrl(baseUrl: string, path: string | undefined, variables: Record<string, string | undefined>): URL {
  const base = new URL(expand(baseUrl, variables));
  const reference = path ? expand(path, variables) : '';
  const split = reference.search(/[?#]/);
  const pathPart = split < 0 ? reference : reference.slice(0, split);
  const rest = split < 0 ? '' : reference.slice(split);
  if (pathPart === '') return new URL(rest, base);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return new URL(pathPart.replace(/^\/+/, '') + rest, base);
}
