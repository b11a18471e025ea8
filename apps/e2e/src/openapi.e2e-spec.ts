/**
 * The API's OpenAPI document and its browsable page, served by the gateway in both run modes
 * without authentication, the page's files from the gateway itself (no CDN).
 */
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack()],
  ['embedded', () => startEmbeddedStack()],
];

describe.each(MODES)('OpenAPI document and docs page (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  beforeAll(async () => {
    stack = await start();
  });
  afterAll(async () => stack?.stop());

  it('serves /api/v3/openapi.json: the document of every route', async () => {
    const res = await fetch(`${stack.baseUrl}/api/v3/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = (await res.json()) as { openapi: string; servers: unknown; paths: Record<string, Record<string, { operationId: string }>> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: '/api/v3' }]);
    expect(doc.paths['/applications/{application_id}/devices/{device_id}'].get.operationId).toBe('EndDeviceRegistry_Get');
  });

  it('serves /api/v3/docs, a page whose scripts and styles the gateway serves too', async () => {
    const res = await fetch(`${stack.baseUrl}/api/v3/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    const assets = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset.startsWith('/api/v3/docs/')).toBe(true);
      const file = await fetch(`${stack.baseUrl}${asset}`);
      expect({ asset, status: file.status }).toEqual({ asset, status: 200 });
      expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });
});
