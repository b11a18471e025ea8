import { defineEvent } from '../definitions';

/** The events service itself: the first message of every stream (no visibility: always shown). */
export const EVENTS_EVENTS = {
  streamStart: defineEvent('events.stream.start', 'stream start', { visibility: [], dataType: 'google.protobuf.Value' }),
};
