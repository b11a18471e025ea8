import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The fields every log line written on behalf of one piece of work carries: an HTTP request
 * (`request_id`), an RPC a component serves (`request_id`, `rpc`, `component`), and the radio
 * uplink it belongs to (`uplink_id`: its `gs:uplink:` correlation ID). Held in an AsyncLocalStorage, so code far below the handler
 * (a store, a formatter) logs with them without passing a logger around.
 */
export interface LogFields {
  request_id?: string;
  rpc?: string;
  component?: string;
  [field: string]: unknown;
}

const storage = new AsyncLocalStorage<LogFields>();

/** Runs `fn` (and everything it starts) with `fields` on every log line. */
export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  return storage.run(fields, fn);
}

/** The fields of the work being done now, if any. */
export function currentLogFields(): LogFields | undefined {
  return storage.getStore();
}
