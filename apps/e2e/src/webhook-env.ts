import { type Api, expectStatus } from './http-client';

/**
 * The stack's webhook settings for the e2e suites: short retries and timeouts, so that a
 * receiver's downtime and the failure cases take seconds; loopback receivers allowed; 4 requests
 * at a time per webhook.
 */
export const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_BASE_MS: '200',
  WEBHOOK_RETRY_MAX_MS: '1000',
  WEBHOOK_TIMEOUT_MS: '3000',
  WEBHOOK_CONCURRENCY: '4',
};

/** A CayenneLPP payload (channel 1 temperature 27.2 °C, channel 2 relative humidity 50 %), base64, for simulated uplinks. */
export const LPP = Buffer.from('01670110026864', 'hex').toString('base64');

/**
 * Sets a JSON webhook of `app` (TTS's ApplicationWebhook with `ids`, `base_url`, `format: json`)
 * that delivers each message kind of `paths` (`uplink_message`, `join_accept`, …) at its path; must answer 200.
 */
export async function setJsonWebhook(api: Api, app: string, webhookId: string, baseUrl: string, paths: Record<string, string>): Promise<void> {
  const messages = Object.fromEntries(Object.entries(paths).map(([kind, path]) => [kind, { path }]));
  expectStatus(
    await api.put(`/api/v3/as/webhooks/${app}/${webhookId}`, {
      webhook: { ids: { webhook_id: webhookId, application_ids: { application_id: app } }, base_url: baseUrl, format: 'json', ...messages },
      field_mask: { paths: ['base_url', 'format', ...Object.keys(paths)] },
    }),
    200,
  );
}
