import { ApiError, apiUrl, authHeaders } from './client';
import { NdjsonSplitter } from './ndjson';

export interface EntityIdentifiers {
  application_ids?: { application_id: string };
  device_ids?: { device_id: string; application_ids?: { application_id: string }; dev_eui?: string; join_eui?: string };
  gateway_ids?: { gateway_id: string; eui?: string };
  user_ids?: { user_id: string };
}

export interface StackEvent {
  name: string;
  time: string;
  identifiers?: EntityIdentifiers[];
  data?: Record<string, unknown> & { '@type'?: string };
  correlation_ids?: string[];
  unique_id?: string;
}

export interface StreamRequest {
  identifiers: EntityIdentifiers[];
  /** Exact names or `/regex/`. */
  names?: string[];
  tail?: number;
}

export type StreamState = { state: 'connecting' } | { state: 'open' } | { state: 'reconnecting'; error?: ApiError } | { state: 'failed'; error: ApiError };

const RETRY_MS = [500, 1000, 2000, 5000, 10000];

/**
 * Follows `POST /api/v3/events` (fetch and a ReadableStream reader): calls `onEvent` for each
 * event, once per `unique_id`. When the stream ends or breaks it opens it again (after the last
 * event seen, so nothing is lost or repeated); an error the API answers before the stream starts
 * (4xx: bad filter, missing rights) ends it with `failed`. Returns the function that stops it.
 */
export function followEvents(request: StreamRequest, onEvent: (event: StackEvent) => void, onState: (state: StreamState) => void): () => void {
  const controller = new AbortController();
  const seen = new Set<string>();
  let after: string | undefined;
  let attempt = 0;

  const deliver = (event: StackEvent) => {
    if (event.name === 'events.stream.start') return;
    if (event.unique_id) {
      if (seen.has(event.unique_id)) return;
      seen.add(event.unique_id);
      if (seen.size > 5000) seen.delete(seen.values().next().value as string);
    }
    if (!after || event.time > after) after = event.time;
    onEvent(event);
  };

  const once = async (): Promise<void> => {
    onState(attempt === 0 ? { state: 'connecting' } : { state: 'reconnecting' });
    const body = { ...request, ...(after ? { after, tail: undefined } : {}) };
    const res = await fetch(apiUrl('/events'), {
      method: 'POST',
      headers: { ...authHeaders(), 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    if (!res.ok) throw await ApiError.from(res);
    if (!res.body) throw new ApiError(res.status, undefined, 'the browser gave no response stream');
    const reader = res.body.getReader();
    const splitter = new NdjsonSplitter();
    onState({ state: 'open' });
    attempt = 0;
    for (;;) {
      const { done, value } = await reader.read();
      const messages = done ? splitter.end() : splitter.push(value);
      for (const message of messages as Array<{ result?: StackEvent; error?: { code?: number; message?: string; details?: [] } }>) {
        if (message.result) deliver(message.result);
        if (message.error) throw new ApiError(200, message.error.code, message.error.message ?? 'stream error', message.error.details ?? []);
      }
      if (done) return;
    }
  };

  const run = async () => {
    while (!controller.signal.aborted) {
      try {
        await once();
        if (controller.signal.aborted) return;
        onState({ state: 'reconnecting' });
      } catch (err) {
        if (controller.signal.aborted) return;
        const error = err instanceof ApiError ? err : new ApiError(0, undefined, err instanceof Error ? err.message : String(err));
        if (error.status >= 400 && error.status < 500 && error.status !== 429 && error.status !== 408) {
          onState({ state: 'failed', error });
          return;
        }
        onState({ state: 'reconnecting', error });
      }
      await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]));
    }
  };
  void run();
  return () => controller.abort();
}
