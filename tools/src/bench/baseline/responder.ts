import { createPool } from 'mysql2/promise';
import { connect } from 'nats';
import { runBaselineProcess } from './process';

/**
 * Baseline responder: NATS request/reply on `<BENCH_SUBJECT>.get`, one primary-key SELECT with
 * mysql2 (pool of 32, as the IS), the same response shape as the IS Get without field mask.
 */
interface Row {
  application_id: string;
  device_id: string;
  dev_eui: string | null;
  join_eui: string | null;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
  fields: string;
}

const iso = (sql: string) => `${sql.replace(' ', 'T')}Z`;

async function main(): Promise<() => Promise<void>> {
  const subject = process.env.BENCH_SUBJECT ?? 'bench';
  const pool = createPool({ uri: process.env.BENCH_DATABASE_URL, connectionLimit: 32, dateStrings: true, charset: 'utf8mb4_bin', timezone: 'Z' });
  const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'baseline-responder' });
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  nc.subscribe(`${subject}.ping`, { queue: 'baseline', callback: (_err, msg) => msg.respond(encoder.encode('{}')) });
  nc.subscribe(`${subject}.get`, {
    queue: 'baseline',
    callback: (err, msg) => {
      if (err) return;
      const { a, d } = JSON.parse(decoder.decode(msg.data)) as { a: string; d: string };
      pool
        .query('SELECT * FROM end_devices WHERE application_id = ? AND device_id = ? LIMIT 1', [a, d])
        .then(([rows]) => {
          const r = (rows as Row[])[0];
          if (!r) return msg.respond(encoder.encode('{"error":"not_found"}'));
          const ids: Record<string, unknown> = { device_id: r.device_id, application_ids: { application_id: r.application_id } };
          if (r.dev_eui) ids.dev_eui = r.dev_eui;
          if (r.join_eui) ids.join_eui = r.join_eui;
          msg.respond(encoder.encode(JSON.stringify({ ok: { ids, created_at: iso(r.created_at), updated_at: iso(r.updated_at) } })));
        })
        .catch((e: unknown) => msg.respond(encoder.encode(JSON.stringify({ error: String(e) }))));
    },
  });
  return async () => {
    await nc.drain();
    await pool.end();
  };
}

runBaselineProcess(main);
