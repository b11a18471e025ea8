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
