import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const CONSOLE_PATH = '/console';

/**
 * Where `npm run build` writes the console (`vite build`, apps/console): beside the compiled
 * gateway in dist/ (`dist/libs/gateway/src/lib` → `dist/apps/console`).
 */
export const DEFAULT_CONSOLE_DIR = join(__dirname, '..', '..', '..', '..', 'apps', 'console');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The page holds an API key: nothing but the gateway's own files and API (Mantine writes its styles inline). */
const CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

interface ConsoleFile {
  type: string;
  body: Buffer;
  /** Worth compressing (text over 1 KiB); compressed on its first request, not at start. */
  compressible: boolean;
  gzipped?: Buffer;
  /** Vite's hashed file names never change content: cached for a year. */
  immutable: boolean;
}

/** Every file under `dir`, by its URL path below /console (e.g. `/assets/index-3f2a.js`). */
function readTree(dir: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) {
        if (name !== '.vite') walk(path);
        continue;
      }
      const url = '/' + relative(dir, path).split(sep).join('/');
      const body = readFileSync(path);
      const type = TYPES[extname(name)] ?? 'application/octet-stream';
      const compressible = /^(text\/|application\/(javascript|json)|image\/svg)/.test(type) && body.length > 1024;
      files.set(url, { type, body, compressible, immutable: url.startsWith('/assets/') });
    }
  };
  walk(dir);
  return files;
}

/**
 * `GET /console/**`: the web console (apps/console), static files read once at start (and
 * gzipped once, when first asked for so). A path that
 * names no file and is not under `assets/` is a page of the single-page app: its index.html, so
 * deep links and reloads work. Without a built console (`npm run build` not run, or a build
 * without it) every `/console` path answers 404 with a text saying so.
 */
@Injectable()
export class ConsoleRoute {
  register(fastify: FastifyInstance, dir = DEFAULT_CONSOLE_DIR): void {
    const built = existsSync(join(dir, 'index.html')) && existsSync(join(dir, '.vite', 'manifest.json'));
    const files = built ? readTree(dir) : new Map<string, ConsoleFile>();
    const index = files.get('/index.html');
    const handler = (req: FastifyRequest, reply: FastifyReply) => {
      if (!index) {
        return reply.code(404).type('text/plain; charset=utf-8').send('The console is not built: run `npm run build` (it writes dist/apps/console).\n');
      }
      const path = (req.url.split('?')[0] ?? '').slice(CONSOLE_PATH.length) || '/';
      const file = files.get(path) ?? (path.startsWith('/assets/') ? undefined : index);
      if (!file) return reply.code(404).type('text/plain; charset=utf-8').send('Not found\n');
      reply
        .type(file.type)
        .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
        .header('content-security-policy', CSP)
        .header('x-content-type-options', 'nosniff')
        .header('vary', 'accept-encoding');
      if (file.compressible && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
        file.gzipped ??= gzipSync(file.body);
        return reply.header('content-encoding', 'gzip').send(file.gzipped);
      }
      return reply.send(file.body);
    };
    fastify.get(CONSOLE_PATH, { config: { route: CONSOLE_PATH } }, handler);
    fastify.get(`${CONSOLE_PATH}/*`, { config: { route: CONSOLE_PATH } }, handler);
  }
}
