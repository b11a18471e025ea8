import Fastify from 'fastify';
import { connect } from 'nats';
import { runBaselineProcess } from './process';

/**
 * Baseline HTTP edge: Fastify → NATS request (`<BENCH_SUBJECT>.get`) → reply. Same route shape
 * and bearer check as the gateway's Get, nothing else.
 */
async function main(): Promise<() => Promise<void>> {
  const subject = process.env.BENCH_SUBJECT ?? 'bench';
  const expected = `Bearer ${process.env.ADMIN_API_KEY ?? ''}`;
  const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'baseline-server' });
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const app = Fastify({ logger: false });

  app.get('/readyz', async (_req, reply) => {
    try {
      await nc.request(`${subject}.ping`, encoder.encode('{}'), { timeout: 500 });
      return reply.code(200).send('ok');
    } catch {
      return reply.code(503).send('no responder');
    }
  });

  app.get<{ Params: { app: string; dev: string } }>('/api/v3/applications/:app/devices/:dev', async (req, reply) => {
    if (req.headers.authorization !== expected) return reply.code(401).send({ code: 16, message: 'unauthenticated' });
    const msg = await nc.request(`${subject}.get`, encoder.encode(JSON.stringify({ a: req.params.app, d: req.params.dev })), { timeout: 10000 });
    const result = JSON.parse(decoder.decode(msg.data)) as { ok?: unknown; error?: string };
    if (result.error) return reply.code(result.error === 'not_found' ? 404 : 500).send({ message: result.error });
    return reply.code(200).header('content-type', 'application/json').send(JSON.stringify(result.ok));
  });

  await app.listen({ port: Number(process.env.HTTP_PORT ?? 0), host: '127.0.0.1' });
  return async () => {
    await app.close();
    await nc.drain();
  };
}

runBaselineProcess(main);
