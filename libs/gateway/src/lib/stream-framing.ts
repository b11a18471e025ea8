import type { StatusBody } from '@lorawan/errors';

/**
 * How a streaming response is framed (TTS: grpc-gateway `ForwardResponseStream` with the TTN
 * marshalers, wire contract §7.2): every message is `{"result":…}` or `{"error":…}` followed by a
 * delimiter. With `Accept: text/event-stream` (that exact value) the content type is
 * `text/event-stream` and the delimiter a blank line; otherwise JSON lines. Not SSE `data:` lines.
 */
export interface StreamFraming {
  contentType: string;
  delimiter: string;
}

const EVENT_STREAM = 'text/event-stream';
const JSON_LINES: StreamFraming = { contentType: 'application/json', delimiter: '\n' };
const EVENT_STREAM_FRAMING: StreamFraming = { contentType: EVENT_STREAM, delimiter: '\n\n' };

/**
 * Written to an idle stream so that proxies do not close it: JSON whitespace before the next
 * message, so that line splitters (`\n`) and the SDK's `\n\n` splitter read the messages as before.
 */
export const KEEP_ALIVE = ' ';

export function framingFor(accept: string | string[] | undefined): StreamFraming {
  return accept === EVENT_STREAM ? EVENT_STREAM_FRAMING : JSON_LINES;
}

export function frameResult(result: unknown, framing: StreamFraming): string {
  return `{"result":${JSON.stringify(result)}}${framing.delimiter}`;
}

export function frameError(status: StatusBody, framing: StreamFraming): string {
  return `${JSON.stringify({ error: status })}${framing.delimiter}`;
}
