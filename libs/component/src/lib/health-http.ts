import { createServer, type Server } from 'node:http';
import type { HealthService } from './health.service';

/**
 * `/healthz` (liveness: the process answers) and `/readyz` (readiness: transport and database)
 * for components without an HTTP API of their own, on HEALTH_PORT, for Kubernetes probes.
 */
export async function serveHealth(health: HealthService, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && req.url === '/healthz') return reply(200, { status: 'ok' });
    if (req.method === 'GET' && req.url === '/readyz') {
      health.check().then(
        (report) => reply(report.status === 'ok' ? 200 : 503, report),
        () => reply(503, { status: 'unavailable' }),
      );
      return;
    }
    reply(404, { code: 5, message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(port, resolve));
  return server;
}
