import type { ApplicationUpKind } from '@lorawan/api';

/**
 * TTS's MQTT topic layout v3 (`pkg/applicationserver/io/mqtt/topics/v3.go`): every topic of an
 * application is under `v3/{application UID}/`, its devices' messages under
 * `v3/{uid}/devices/{device}/…`. The UID is the application ID, or `{application}@{tenant}` when
 * the client connected with a tenant (TTS Cloud).
 */
export const TOPIC_VERSION = 'v3';

/** The topic suffix (after `v3/{uid}/devices/{device}/`) of each kind of application message, as TTS. */
export const UP_TOPICS: Record<ApplicationUpKind, string> = {
  uplink_message: 'up',
  uplink_normalized: 'up/normalized',
  join_accept: 'join',
  downlink_ack: 'down/ack',
  downlink_nack: 'down/nack',
  downlink_sent: 'down/sent',
  downlink_failed: 'down/failed',
  downlink_queued: 'down/queued',
  downlink_queue_invalidated: 'down/invalidated',
  location_solved: 'location/solved',
  service_data: 'service/data',
};

/** The topic of an application message of `kind` about device `deviceId`. */
export function upTopic(uid: string, deviceId: string, kind: ApplicationUpKind): string {
  return `${TOPIC_VERSION}/${uid}/devices/${deviceId}/${UP_TOPICS[kind]}`;
}

/**
 * A subscription's topic filter as TTS accepts it for an application (`AcceptedTopic`): `#` and
 * `v3/#` become `v3/{uid}/#`, `v3/+/…` becomes `v3/{uid}/…`, `v3/{uid}/…` stays; anything else
 * (another application, another layout) is refused (undefined).
 */
export function acceptedFilter(uid: string, requested: string): string | undefined {
  const parts = requested.split('/');
  if (!validFilter(parts)) return undefined;
  if (parts[0] === '#') return `${TOPIC_VERSION}/${uid}/#`;
  if (parts[0] !== TOPIC_VERSION || parts.length < 2) return undefined;
  switch (parts[1]) {
    case '#':
      return `${TOPIC_VERSION}/${uid}/#`;
    case '+':
      return [TOPIC_VERSION, uid, ...parts.slice(2)].join('/');
    case uid:
      return requested;
    default:
      return undefined;
  }
}

/** MQTT's rules for a filter: `#` only as the last level, `+` and `#` only as whole levels. */
function validFilter(parts: string[]): boolean {
  return parts.every((part, i) => (part === '#' ? i === parts.length - 1 : part === '+' || (!part.includes('#') && !part.includes('+'))));
}

/** Whether `topic` (no wildcards) matches `filter` (MQTT 3.1.1 §4.7: `+` one level, `#` this level and all below, the parent included). */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

export type DownlinkOperation = 'push' | 'replace';

/** `v3/{uid}/devices/{device}/down/push|replace` of the client's application: the device and the operation; else undefined. */
export function parseDownlinkTopic(uid: string, topic: string): { deviceId: string; operation: DownlinkOperation } | undefined {
  const parts = topic.split('/');
  if (parts.length !== 6 || parts[0] !== TOPIC_VERSION || parts[1] !== uid || parts[2] !== 'devices' || parts[4] !== 'down') return undefined;
  const operation = parts[5];
  if (operation !== 'push' && operation !== 'replace') return undefined;
  return { deviceId: parts[3], operation };
}
