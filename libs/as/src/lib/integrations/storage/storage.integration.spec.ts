import type { ApplicationUpJson } from '@lorawan/api';
import type { PackageUsage } from '../packages/package-association.store';
import { StorageIntegration } from './storage.integration';
import type { StoredUpRow } from './stored-up.store';
import { DEFAULT_WRITER_OPTIONS, StoredUpWriter } from './stored-up-writer';

const up = (dev: string, extra: Partial<ApplicationUpJson> = {}): ApplicationUpJson => ({
  end_device_ids: { device_id: dev, application_ids: { application_id: 'app' } },
  received_at: '2026-11-28T10:00:00.123456Z',
  uplink_message: { f_port: 7, f_cnt: 1 },
  ...extra,
});

/** The integration over a real writer whose store records the rows, with the application's package usage as given (or a failing read). */
function harness(usage: Record<string, PackageUsage> | Error) {
  const rows: StoredUpRow[] = [];
  const writer = new StoredUpWriter({ insert: async (batch) => void rows.push(...batch) }, { ...DEFAULT_WRITER_OPTIONS, bufferMax: 10 });
  const cache = { get: async () => (usage instanceof Error ? Promise.reject(usage) : new Map(Object.entries(usage))) };
  return { rows, writer, integration: new StorageIntegration(cache, writer) };
}

describe('StorageIntegration', () => {
  it('stores the messages of an application with a default association, of every device and kind', async () => {
    const h = harness({ 'storage-integration': { application: true, devices: new Set() } });
    await h.integration.publish(up('dev-1'));
    await h.integration.publish({ end_device_ids: up('dev-2').end_device_ids, join_accept: { session_key_id: 'AQID' } });
    await h.writer.close();
    expect(h.rows.map((r) => [r.deviceId, r.type, r.fPort])).toEqual([
      ['dev-1', 'uplink_message', 7],
      ['dev-2', 'join_accept', undefined],
    ]);
    expect(h.rows[0].receivedAt).toBe(Date.parse('2026-11-28T10:00:00.123Z'));
    expect(JSON.parse(h.rows[0].up)).toEqual(up('dev-1'));
  });

  it('stores only the devices with an association of their own otherwise, and nothing for other packages', async () => {
    const h = harness({
      'storage-integration': { application: false, devices: new Set(['dev-1']) },
      'other-package': { application: true, devices: new Set() },
    });
    await h.integration.publish(up('dev-1'));
    await h.integration.publish(up('dev-2'));
    await h.writer.close();
    expect(h.rows.map((r) => r.deviceId)).toEqual(['dev-1']);
  });

  it('never fails the message: unreadable associations store nothing and resolve', async () => {
    const h = harness(new Error('database away'));
    await expect(h.integration.publish(up('dev-1'))).resolves.toBeUndefined();
    await h.writer.close();
    expect(h.rows).toEqual([]);
  });

  it('ignores a message without exactly one kind', async () => {
    const h = harness({ 'storage-integration': { application: true, devices: new Set() } });
    await h.integration.publish({ end_device_ids: up('dev-1').end_device_ids });
    await h.writer.close();
    expect(h.rows).toEqual([]);
  });
});
