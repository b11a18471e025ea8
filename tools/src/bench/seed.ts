import { createConnection } from 'mysql2/promise';

/** Length of the indexed description prefix (end-device.entity.ts DESCRIPTION_KEY_LENGTH). */
const DESCRIPTION_KEY_LENGTH = 191;
const COLUMNS = ['application_id', 'device_id', 'dev_eui', 'join_eui', 'name', 'description', 'description_key', 'created_at', 'updated_at', 'fields'];
const SITES = ['north', 'south', 'east', 'west', 'central'];
const ADJECTIVES = ['Amber', 'Brisk', 'Cedar', 'Delta', 'Ember', 'Fjord', 'Glade', 'Harbor', 'Iris', 'Juniper', 'Kestrel', 'Lumen'];

export function deviceId(i: number): string {
  return `dev-${String(i).padStart(6, '0')}`;
}

/** Upper-case hex, 16 characters (as the EUI columns hold them). */
function eui(prefix: string, i: number): string {
  return (prefix + i.toString(16).padStart(16 - prefix.length, '0')).toUpperCase();
}

/** `2024-05-01 10:00:00.123456`: DATETIME(6) text, as timestampToSql() writes it. */
function sqlTime(micros: number): string {
  const iso = new Date(Math.floor(micros / 1000)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${String(micros % 1_000_000).padStart(6, '0')}`;
}

/** One IS row, as toEntity() of end-device.mapper.ts would write it. */
function row(applicationId: string, i: number, baseMicros: number, euiPrefix: string): unknown[] {
  // Names in an order unrelated to device_id, so `order=name` really sorts.
  const n = (i * 7919) % 100_003;
  const name = `${ADJECTIVES[n % ADJECTIVES.length]} sensor ${String(n).padStart(6, '0')}`;
  const description = `Benchmark device ${i} at site ${SITES[i % SITES.length]}, floor ${i % 12}, measuring temperature and humidity every five minutes.`;
  const created = sqlTime(baseMicros + i * 1000);
  const fields = {
    attributes: { site: SITES[i % SITES.length], floor: String(i % 12) },
    version_ids: { brand_id: 'the-things-products', model_id: 'the-things-uno', hardware_version: '1.0', firmware_version: 'quickstart' },
    network_server_address: 'localhost',
    application_server_address: 'localhost',
    join_server_address: 'localhost',
  };
  return [
    applicationId,
    deviceId(i),
    eui(euiPrefix, i),
    '0000000000000001',
    name,
    description,
    [...description].slice(0, DESCRIPTION_KEY_LENGTH).join(''),
    created,
    created,
    JSON.stringify(fields),
  ];
}

export interface SeedOptions {
  /** The first device number (devices `from` … `from + count - 1`). */
  from?: number;
  /** DevEUI prefix (hex): (JoinEUI, DevEUI) pairs are unique across applications. */
  euiPrefix?: string;
  batch?: number;
  parallel?: number;
}

/**
 * Inserts `count` devices into `end_devices` in multi-row INSERT batches over a few connections,
 * and adds them to the application's count (`end_device_counts`, which List's `X-Total-Count`
 * reads), as the IS's own inserts do.
 */
export async function seedDevices(databaseUrl: string, applicationId: string, count: number, options: SeedOptions = {}): Promise<void> {
  const { from = 0, euiPrefix = '70B3D57ED0', batch = 2000, parallel = 2 } = options;
  const baseMicros = Date.UTC(2024, 0, 1) * 1000;
  const end = from + count;
  let next = from;
  const worker = async () => {
    const conn = await createConnection({ uri: databaseUrl, charset: 'utf8mb4_bin', timezone: 'Z' });
    try {
      for (;;) {
        const start = next;
        if (start >= end) return;
        next = Math.min(end, start + batch);
        const rows: unknown[][] = [];
        for (let i = start; i < next; i++) rows.push(row(applicationId, i, baseMicros, euiPrefix));
        await conn.query(`INSERT INTO end_devices (${COLUMNS.join(', ')}) VALUES ?`, [rows]);
      }
    } finally {
      await conn.end();
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  const conn = await createConnection({ uri: databaseUrl });
  try {
    await conn.query(
      'INSERT INTO end_device_counts (application_id, shard, device_count) VALUES (?, 0, ?) ON DUPLICATE KEY UPDATE device_count = device_count + VALUES(device_count)',
      [applicationId, count],
    );
    await conn.query('ANALYZE TABLE end_devices');
  } finally {
    await conn.end();
  }
}
