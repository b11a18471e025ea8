import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Embedded mode must start with nothing configured: without ADMIN_API_KEY, a key is generated once
 * and kept in `<DATA_DIR>/admin-api-key` (mode 0600). The key itself is never logged.
 */
export function embeddedAdminKey(dataDir: string): { key: string; file: string } {
  const file = join(dataDir, 'admin-api-key');
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), file };
  mkdirSync(dataDir, { recursive: true });
  const key = `NNSXS.${randomBytes(24).toString('hex').toUpperCase()}.${randomBytes(32).toString('hex').toUpperCase()}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return { key, file };
}
