import type { ApplicationUpJson } from '@lorawan/api';

/**
 * Where an application message (ApplicationUp: uplinks, join-accepts, downlink queued/failed, …)
 * is handed on: one integration, or all of them at once (ApplicationIntegrations).
 */
export interface ApplicationUpSink {
  /**
   * Resolves once the message is safely on its way (webhooks: a delivery job per enabled webhook
   * durably queued), so a caller that has awaited it can answer its client knowing nothing will
   * be lost; rejects only if it could not be.
   */
  publish(up: ApplicationUpJson): Promise<void>;
}

/**
 * One of the AS's integrations (TTS `pkg/applicationserver/io/*`): it lives in
 * `integrations/<name>/`, receives every ApplicationUp of every application, and owns its
 * downlink entry points. `name` labels its logs and metrics.
 */
export interface ApplicationIntegration extends ApplicationUpSink {
  readonly name: string;
}

/** The list of the AS's integrations (IntegrationsModule assembles it). */
export const APPLICATION_INTEGRATIONS = Symbol('APPLICATION_INTEGRATIONS');
