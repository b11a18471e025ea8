import type { ApplicationPubSubIdentifiers } from '@lorawan/api';

/** Where the registry reports a Pub/Sub set or deleted: its connection is re-opened (or closed) on every AS replica. */
export interface PubSubChanges {
  changed(ids: ApplicationPubSubIdentifiers): Promise<void>;
}

export const PUBSUB_CHANGES = Symbol('PUBSUB_CHANGES');
