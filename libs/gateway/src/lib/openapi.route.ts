import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Injectable } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { API_BASE_PATH, buildOpenApiDocument } from '@lorawan/api';

export const OPENAPI_PATH = `${API_BASE_PATH}/openapi.json`;
export const DOCS_PATH = `${API_BASE_PATH}/docs`;

/** swagger-ui-dist's files the page loads, with their content types. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The page's own script (a file, not inline, so a strict Content-Security-Policy may forbid inline scripts). */
const INITIALIZER = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_PATH)}, dom_id: '#swagger-ui', deepLinking: true });\n`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>LoRaWAN stack HTTP API</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/initializer.js"></script>
</body>
</html>
`;

/**
 * `GET /api/v3/openapi.json` (the API's OpenAPI document, built from the RPC table once, on first request)
 * and `GET /api/v3/docs` (a browsable page: Swagger UI, its files served from the swagger-ui-dist
 * package, nothing from elsewhere). Unauthenticated, like the document TTS publishes.
 */
@Injectable()
export class OpenApiRoute {
  register(fastify: FastifyInstance): void {
    // Built on its first request (about 30 ms), not at every gateway's start.
    let document: string | undefined;
    fastify.get(OPENAPI_PATH, { config: { route: OPENAPI_PATH } }, (_req, reply) =>
      reply.type('application/json').send((document ??= JSON.stringify(buildOpenApiDocument()))),
    );
    fastify.get(DOCS_PATH, { config: { route: DOCS_PATH } }, (_req, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
    fastify.get(`${DOCS_PATH}/initializer.js`, { config: { route: DOCS_PATH } }, (_req, reply) =>
      reply.type('application/javascript; charset=utf-8').send(INITIALIZER),
    );
    const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
    for (const [file, type] of Object.entries(ASSETS)) {
      const content = readFileSync(join(dist, file));
      fastify.get(`${DOCS_PATH}/${file}`, { config: { route: DOCS_PATH } }, (_req, reply) =>
        reply.type(type).header('cache-control', 'public, max-age=86400').send(content),
      );
    }
  }
}
