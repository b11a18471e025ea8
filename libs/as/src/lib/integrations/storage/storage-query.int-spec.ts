import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeMessage, GetStoredApplicationUpRequest, type JsonObject } from '@lorawan/api';
import { openDataSource } from '@lorawan/persistence';
import { registryDataSourceOptions } from '@lorawan/registry';
import type { DataSource } from 'typeorm';
import { AS_MIGRATIONS } from '../../migrations';
import { PAGE_ROWS, StorageQueryService, type StoredUpPage } from './storage-query.service';
import { StorageRetentionService } from './storage-retention.service';
import { SqlStoredUpStore, type StoredUpRow } from './stored-up.store';

const DAY = 86_400_000;
const NOW = Date.now();

function row(app: string, dev: string, receivedAt: number, n: number): StoredUpRow {
  const up = {
    end_device_ids: { device_id: dev, application_ids: { application_id: app } },
    received_at: new Date(receivedAt).toISOString(),
    uplink_message: { f_cnt: n },
  };
  return { applicationId: app, deviceId: dev, type: 'uplink_message', receivedAt, fPort: 1, up: JSON.stringify(up) };
}

/** Every message of a query, following the continuation tokens as the gateway does; and the number of pages. */
async function all(service: StorageQueryService, json: Record<string, unknown>): Promise<{ messages: JsonObject[]; pages: number }> {
  const messages: JsonObject[] = [];
  let pages = 0;
  let token: string | undefined;
  do {
    const page: StoredUpPage = await service.getStored(
      decodeMessage(GetStoredApplicationUpRequest, { ...json, ...(token ? { continuation_token: token } : {}) }),
    );
    messages.push(...page.results);
    token = page.continuation_token;
    pages++;
  } while (token);
  return { messages, pages };
}

const fCnts = (messages: JsonObject[]) => messages.map((m) => (m.uplink_message as { f_cnt: number }).f_cnt);

describe('Storage Integration queries and retention (SQLite)', () => {
  let dir: string;
  let ds: DataSource;
  let store: SqlStoredUpStore;
  let service: StorageQueryService;
  const app = { application_ids: { application_id: 'app1' } };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lw-as-storage-q-'));
    ds = await openDataSource(registryDataSourceOptions('as', AS_MIGRATIONS, { databaseUrls: {}, dataDir: dir }), true);
    store = new SqlStoredUpStore(ds);
    service = new StorageQueryService(store);
    const rows = Array.from({ length: 1200 }, (_, i) => row('app1', `dev-${i % 3}`, NOW - DAY + i * 1000, i));
    for (let i = 0; i < rows.length; i += 300) await store.insert(rows.slice(i, i + 300));
    await store.insert([row('app2', 'dev-0', NOW - DAY, 5000)]);
  });
  afterAll(async () => {
    await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a query of any size in bounded pages, every message once, in order', async () => {
    const { messages, pages } = await all(service, { ...app, type: 'uplink_message' });
    expect(pages).toBe(Math.ceil(1200 / PAGE_ROWS));
    expect(fCnts(messages)).toEqual(Array.from({ length: 1200 }, (_, i) => i));
  });

  it('stops at the limit across pages, newest first', async () => {
    const { messages } = await all(service, { ...app, type: 'uplink_message', order: '-received_at', limit: 700 });
    expect(fCnts(messages)).toEqual(Array.from({ length: 700 }, (_, i) => 1199 - i));
  });

  it('keeps the filters and the field mask on every page, and the request’s identifiers', async () => {
    const { messages } = await all(service, {
      end_device_ids: { device_id: 'dev-1', application_ids: { application_id: 'app1' } },
      type: 'uplink_message',
      field_mask: 'uplink_message.f_cnt',
    });
    expect(messages).toHaveLength(400);
    expect(messages.every((m) => Object.keys(m).join() === 'uplink_message')).toBe(true);
    expect(fCnts(messages)).toEqual(Array.from({ length: 400 }, (_, i) => 3 * i + 1));
    // A token of app1 sent with app2's identifiers reads app2's messages only.
    const first = await service.getStored(decodeMessage(GetStoredApplicationUpRequest, { ...app, type: 'uplink_message' }));
    const other = await service.getStored(
      decodeMessage(GetStoredApplicationUpRequest, { application_ids: { application_id: 'app2' }, continuation_token: first.continuation_token }),
    );
    expect(fCnts(other.results)).toEqual([]);
  });

  it('counts by device', async () => {
    expect(await service.count({ ...app, type: 'uplink_message' })).toEqual({ count: { 'dev-0': 400, 'dev-1': 400, 'dev-2': 400 } });
  });

  it('deletes what is past the retention in bounded batches, and nothing when the retention is 0', async () => {
    const config = (retentionMs: number) => ({ as: { storage: { retentionMs, retentionIntervalMs: 1000, bufferMax: 1 } } }) as never;
    expect(await new StorageRetentionService(store, config(0)).runOnce()).toBe(0);
    // Received more than DAY - 600 s ago: the first 600 messages of app1 and app2's one.
    const retention = new StorageRetentionService(store, config(DAY - 600_000));
    expect(await retention.runOnce(NOW)).toBe(601);
    expect(await service.count({ ...app })).toEqual({ count: { 'dev-0': 200, 'dev-1': 200, 'dev-2': 200 } });
    expect(await retention.runOnce(NOW)).toBe(0);
  });
});
