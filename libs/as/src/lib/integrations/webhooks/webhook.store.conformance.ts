import { APPLICATION_UP_PATHS, type ApplicationWebhook } from '@lorawan/api';
import type { WebhookStore } from './webhook.store';

export interface WebhookStoreHarness {
  store: WebhookStore;
  close(): Promise<void>;
}

export function webhook(applicationId: string, webhookId: string, fields: Partial<ApplicationWebhook> = {}): ApplicationWebhook {
  return {
    ids: { application_ids: { application_id: applicationId }, webhook_id: webhookId },
    created_at: '2026-11-22T07:00:00.000000Z',
    updated_at: '2026-11-22T07:00:00.000000Z',
    base_url: 'https://example.com/hooks',
    format: 'json',
    uplink_message: { path: '/up' },
    ...fields,
  };
}

/** The behaviour every WebhookStore implementation has (run against MySQL/MariaDB and SQLite). */
export function describeWebhookStoreConformance(name: string, open: () => Promise<WebhookStoreHarness>): void {
  describe(`WebhookStore conformance: ${name}`, () => {
    let harness: WebhookStoreHarness;
    let store: WebhookStore;
    beforeAll(async () => {
      harness = await open();
      store = harness.store;
    });
    afterAll(() => harness.close());

    it('puts and gets a webhook with every field round-tripped', async () => {
      const full = webhook('app-1', 'wh-full', {
        headers: { Authorization: 'Bearer x' },
        downlink_api_key: 'NNSXS.SECRET',
        join_accept: {},
        paused: false,
        health_status: { healthy: {} },
        field_mask: { paths: ['up.uplink_message.decoded_payload'] },
      });
      await store.put(full);
      expect(await store.get('app-1', 'wh-full')).toEqual(full);
      expect(await store.get('app-1', 'missing')).toBeUndefined();
      expect(await store.get('app-2', 'wh-full')).toBeUndefined();
    });

    it('holds the largest webhook validation lets through, and header names of any spelling', async () => {
      const headers = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`x-header-${String(i).padStart(2, '0')}-${'h'.repeat(50)}`, 'v'.repeat(4096)]));
      const largest = webhook('app-1', 'wh-largest', { headers, downlink_api_key: 'k'.repeat(128), field_mask: { paths: [...APPLICATION_UP_PATHS] } });
      await store.put(largest);
      expect(await store.get('app-1', 'wh-largest')).toEqual(largest);
      const odd = webhook('app-1', 'wh-odd', { headers: Object.fromEntries(['__proto__', 'constructor', 'toString'].map((name) => [name, name])) });
      await store.put(odd);
      expect(Object.keys((await store.get('app-1', 'wh-odd'))?.headers ?? {})).toEqual(['__proto__', 'constructor', 'toString']);
    });

    it('replaces a webhook on put', async () => {
      await store.put(webhook('app-1', 'wh-replace', { paused: true }));
      const next = webhook('app-1', 'wh-replace', { base_url: 'http://other.example/x', updated_at: '2026-11-22T08:00:00.000000Z' });
      await store.put(next);
      expect(await store.get('app-1', 'wh-replace')).toEqual(next);
    });

    it('lists an application’s webhooks by ID, and only the non-paused ones as active', async () => {
      await store.put(webhook('app-list', 'b-paused', { paused: true }));
      await store.put(webhook('app-list', 'a-active'));
      await store.put(webhook('app-list', 'c-active', { paused: false }));
      await store.put(webhook('app-other', 'a-active'));
      expect((await store.list('app-list')).map((w) => w.ids.webhook_id)).toEqual(['a-active', 'b-paused', 'c-active']);
      expect((await store.listActive('app-list')).map((w) => w.ids.webhook_id)).toEqual(['a-active', 'c-active']);
      expect(await store.list('app-none')).toEqual([]);
    });

    it('updates the health status alone', async () => {
      const before = webhook('app-health', 'wh', { headers: { A: 'b' } });
      await store.put(before);
      const unhealthy = { unhealthy: { failed_attempts: '3', last_failed_attempt_at: '2026-11-22T07:10:00Z' } };
      expect(await store.setHealthStatus('app-health', 'wh', unhealthy)).toBe(true);
      expect(await store.get('app-health', 'wh')).toEqual({ ...before, health_status: unhealthy });
      expect(await store.setHealthStatus('app-health', 'wh', undefined)).toBe(true);
      expect(await store.get('app-health', 'wh')).toEqual(before);
      expect(await store.setHealthStatus('app-health', 'missing', { healthy: {} })).toBe(false);
    });

    it('deletes, and says when there was nothing to delete', async () => {
      await store.put(webhook('app-del', 'wh'));
      expect(await store.delete('app-del', 'wh')).toBe(true);
      expect(await store.get('app-del', 'wh')).toBeUndefined();
      expect(await store.delete('app-del', 'wh')).toBe(false);
    });
  });
}
