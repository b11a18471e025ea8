import type { JetStreamManager, NatsError, StreamConfig } from 'nats';

/** JetStream API error codes (nats-server `server/errors.json`). */
export const JS_STREAM_NOT_FOUND = 10059;
export const JS_STREAM_NAME_IN_USE = 10058;
export const JS_CONSUMER_NOT_FOUND = 10014;

export type StreamSettings = Partial<StreamConfig> & { name: string; subjects: string[] };

/**
 * Creates a stream, or brings the `updatable` settings of an existing one to `config`: idempotent,
 * and replicas starting at the same time all succeed (JetStream accepts an identical `add`; a
 * racing different one is looked at again and updated). Settings JetStream cannot change on an
 * existing stream (retention, storage) are only used on creation.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  config: StreamSettings,
  updatable: ReadonlyArray<keyof StreamConfig>,
): Promise<'created' | 'updated' | 'unchanged'> {
  for (let attempt = 0; ; attempt++) {
    const existing = await jsm.streams.info(config.name).catch((err: NatsError) => {
      if (err.api_error?.err_code === JS_STREAM_NOT_FOUND) return undefined;
      throw err;
    });
    try {
      if (!existing) {
        await jsm.streams.add(config);
        return 'created';
      }
      const current = existing.config;
      const changed = updatable.filter((key) => key in config && JSON.stringify(current[key]) !== JSON.stringify(config[key]));
      if (changed.length === 0) return 'unchanged';
      await jsm.streams.update(config.name, { ...current, ...Object.fromEntries(changed.map((key) => [key, config[key]])) });
      return 'updated';
    } catch (err) {
      const code = (err as NatsError).api_error?.err_code;
      // Another replica created it meanwhile (with other settings): look again.
      if ((code === JS_STREAM_NAME_IN_USE || code === JS_STREAM_NOT_FOUND) && attempt < 5) continue;
      throw err;
    }
  }
}
