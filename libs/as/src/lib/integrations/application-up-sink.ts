import type { ApplicationUpJson } from '@lorawan/api';

/**
 * Where the AS hands every application message (ApplicationUp: uplinks, join-accepts, downlink
 * queued/failed, …) to its integrations. The webhook integration implements it: `publish`
 * resolves once a delivery job per enabled webhook of the application is durably queued
 * (JetStream in distributed mode, the in-process queue in embedded mode), so a caller that has
 * awaited it can answer its client knowing nothing will be lost. It rejects only if the jobs could
 * not be queued.
 */
export interface ApplicationUpSink {
  publish(up: ApplicationUpJson): Promise<void>;
}

export const APPLICATION_UP_SINK = Symbol('APPLICATION_UP_SINK');
