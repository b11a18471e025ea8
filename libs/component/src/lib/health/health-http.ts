import { createServer, type Server } from 'node:http';
import { metricsText } from '@lorawan/observability';
import type { HealthService } from './health.service';

/**
 * The operations port (HEALTH_PORT) of a component without an HTTP API of its own: `/healthz`
 * (liveness: the process answers), `/readyz` (readiness: transport, database, not shutting down)
 * for Kubernetes probes, and `/metrics` (Prometheus text).
 */
export async function serveOperations(health: HealthService, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const reply = (status: number, body: string, contentType = 'application/json') => {
      res.writeHead(status, { 'content-type': contentType });
      res.end(body);
    };
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET') return reply(405, JSON.stringify({ code: 12, message: 'Method Not Allowed' }));
    if (path === '/healthz') return reply(200, JSON.stringify({ status: 'ok' }));
    if (path === '/readyz') {
      health.check().then(
        (report) => reply(report.status === 'ok' ? 200 : 503, JSON.stringify(report)),
        () => reply(503, JSON.stringify({ status: 'unavailable' })),
      );
      return;
    }
    if (path === '/metrics') {
      metricsText().then(
        ({ contentType, body }) => reply(200, body, contentType),
        () => reply(503, JSON.stringify({ code: 14, message: 'metrics unavailable' })),
      );
      return;
    }
    reply(404, JSON.stringify({ code: 5, message: 'Not Found' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, resolve);
  });
  return server;
}
