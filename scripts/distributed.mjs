#!/usr/bin/env node
// Runs the distributed topology on this machine: one process per component (the Gateway Server
// included, on UDP GS_UDP_PORT, default 1700, and LoRa Basics Station on GS_LBS_PORT, default 1887) and the gateway, over NATS (NATS_URL, default
// nats://127.0.0.1:4222) and MySQL/MariaDB (one database per component that stores data, under
// MYSQL_URL, default mysql://root@127.0.0.1:3306). Ctrl-C stops them all.
import { spawn } from 'node:child_process';
import { createConnection } from 'mysql2/promise';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const MYSQL_URL = (process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306').replace(/\/$/, '');
const COMPONENTS = ['is', 'js', 'ns', 'as', 'events', 'gs'];
const DB_COMPONENTS = ['is', 'js', 'ns', 'as'];

const conn = await createConnection({ uri: MYSQL_URL });
for (const c of DB_COMPONENTS) await conn.query(`CREATE DATABASE IF NOT EXISTS \`lorawan_${c}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
await conn.end();

const env = { ...process.env, NATS_URL };
for (const c of DB_COMPONENTS) env[`${c.toUpperCase()}_DATABASE_URL`] ??= `${MYSQL_URL}/lorawan_${c}`;
if (!env.ADMIN_API_KEY) {
  console.error('Set ADMIN_API_KEY (at least 16 characters) to call the API, e.g. ADMIN_API_KEY=$(openssl rand -hex 24)');
  process.exit(2);
}

const children = [...COMPONENTS, 'gateway'].map((app, i) => {
  // COMPONENT_NODE_FLAGS of libs/config (node-flags.ts).
  const child = spawn(process.execPath, ['--max-semi-space-size=32', `dist/apps/${app}/src/main.js`], {
    env: { ...env, ...(app === 'gateway' ? {} : { HEALTH_PORT: String(8081 + i) }) },
    stdio: 'inherit',
  });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${app} exited (${code ?? signal}); stopping the others`);
      stop(1);
    }
  });
  return child;
});

let stopping = false;
function stop(code = 0) {
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 3000).unref();
}
process.on('SIGINT', () => stop());
process.on('SIGTERM', () => stop());
console.error(
  `gateway on :${env.HTTP_PORT ?? 1885}, components ${COMPONENTS.join(', ')} (health on :8081-:${8080 + COMPONENTS.length}), ` +
    `Gateway Server on UDP :${env.GS_UDP_PORT ?? 1700} and Basics Station ws :${env.GS_LBS_PORT ?? 1887}, over ${NATS_URL}`,
);
