import { Right } from '../rpc/rights';
import { apiKeyEvents, defineEvent, deviceRegistryEvents, entityRegistryEvents } from './definitions';

/**
 * The events each component emits, defined once per component (names, visibility and data as TTS,
 * wire contract §7.3). The events service validates `names` filters against these.
 */

/** Identity Server. */
export const IS_EVENTS = {
  endDevice: deviceRegistryEvents('end_device', 'Identity Server'),
  application: entityRegistryEvents('application', [Right.RIGHT_APPLICATION_INFO], { restore: true }),
  applicationApiKey: apiKeyEvents('application', [Right.RIGHT_APPLICATION_SETTINGS_API_KEYS]),
  gateway: entityRegistryEvents('gateway', [Right.RIGHT_GATEWAY_INFO], { restore: true }),
  gatewayApiKey: apiKeyEvents('gateway', [Right.RIGHT_GATEWAY_SETTINGS_API_KEYS]),
  user: entityRegistryEvents('user', [Right.RIGHT_USER_INFO]),
  userApiKey: apiKeyEvents('user', [Right.RIGHT_USER_SETTINGS_API_KEYS]),
};

/** Join Server. */
export const JS_EVENTS = { endDevice: deviceRegistryEvents('js.end_device', 'Join Server') };

/** Network Server. */
export const NS_EVENTS = { endDevice: deviceRegistryEvents('ns.end_device', 'Network Server') };

/** Application Server. */
export const AS_EVENTS = { endDevice: deviceRegistryEvents('as.end_device', 'Application Server') };

/** The events service itself: the first message of every stream (no visibility: always shown). */
export const EVENTS_EVENTS = {
  streamStart: defineEvent('events.stream.start', 'stream start', { visibility: [], dataType: 'google.protobuf.Value' }),
};
