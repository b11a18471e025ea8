import { join } from 'node:path';
import { UsageError } from './errors';

export interface CliConfig {
  /** The gateway, without a trailing slash: requests go to `<baseUrl>/api/v3/…`. */
  baseUrl: string;
  apiKey: string;
}

export interface ConfigSources {
  flags: { url?: string; apiKey?: string };
  env: Record<string, string | undefined>;
  /** Reads a file, undefined when it does not exist. */
  readFile: (path: string) => string | undefined;
}

export const DEFAULT_URL = 'http://localhost:1885';

/**
 * Where to talk to and with which key: flags, then the environment (`LORAWAN_API_URL`,
 * `LORAWAN_API_KEY`), then for the key the file the embedded stack writes its generated admin key
 * to (`<DATA_DIR or ./data>/admin-api-key`, see apps/stack/src/admin-key.ts), so that
 * `npm start` then `npm run cli -- …` in the same folder needs no configuration.
 */
export function resolveConfig({ flags, env, readFile }: ConfigSources): CliConfig {
  const url = flags.url ?? env.LORAWAN_API_URL ?? DEFAULT_URL;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`invalid URL "${url}" (--url or LORAWAN_API_URL), e.g. ${DEFAULT_URL}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`invalid URL "${url}": use http:// or https://`);
  const keyFile = join(env.DATA_DIR || 'data', 'admin-api-key');
  const apiKey = flags.apiKey ?? env.LORAWAN_API_KEY ?? readFile(keyFile)?.trim();
  if (!apiKey) throw new UsageError(`no API key: pass --api-key, set LORAWAN_API_KEY, or run where ${keyFile} exists (written by the embedded stack)`);
  return { baseUrl: url.replace(/\/+$/, ''), apiKey };
}
