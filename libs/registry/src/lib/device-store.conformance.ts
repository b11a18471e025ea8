import type { DeviceRecord, DeviceStore } from './device-record';

/**
 * The behaviour every registry DeviceStore must have, run by each component (JS, NS, AS) against
 * its own schema on MySQL and on SQLite.
 */
export interface DeviceStoreUnderTest {
  store: DeviceStore;
  /** Whether this registry's schema makes JoinEUI + DevEUI unique (JS, NS) or not (AS). */
  uniqueEuis: boolean;
  /** The raw `fields` column of a row, to check what is at rest. */
  rawFields(applicationId: string, deviceId: string): Promise<string | undefined>;
  close(): Promise<void>;
}

let seq = 0;
function ts(): string {
  seq += 1;
  return new Date(Date.UTC(2024, 4, 1, 10, 0, 0) + seq)
    .toISOString()
    .replace(/\.(\d{3})Z$/, (_, ms: string) => `.${ms}${String(seq % 1000).padStart(3, '0')}Z`);
}

export function record(app: string, id: string, ids: Partial<DeviceRecord['ids']> = {}, fields: Record<string, unknown> = {}): DeviceRecord {
  const now = ts();
  return { ids: { device_id: id, application_ids: { application_id: app }, ...ids }, created_at: now, updated_at: now, revision: 1, fields };
}

const EUI = (n: number) => n.toString(16).toUpperCase().padStart(16, '0');

export function describeDeviceStoreConformance(name: string, open: () => Promise<DeviceStoreUnderTest>): void {
  describe(`registry DeviceStore conformance: ${name}`, () => {
    let sut: DeviceStoreUnderTest;
    let store: DeviceStore;
    beforeAll(async () => {
      sut = await open();
      store = sut.store;
    });
    afterAll(async () => sut.close());

    it('creates and gets a device, round-tripping ids, timestamps, revision and nested fields exactly', async () => {
      const r = record(
        'app-rt',
        'dev-1',
        { dev_eui: EUI(1), join_eui: EUI(0), dev_addr: '26011234' },
        {
          frequency_plan_id: 'EU_863_870_TTN',
          mac_settings: { rx1_delay: 5, rx2_frequency: '869525000', use_adr: true },
          session: { dev_addr: '26011234', keys: { f_nwk_s_int_key: { kek_label: 'k', encrypted_key: 'AQID' } } },
          recent_uplinks: [{ raw_payload: 'AQ==' }],
          name_with_unicode: 'Dévice ✓',
        },
      );
      expect(await store.create(r)).toEqual({ ok: true });
      expect(await store.get('app-rt', 'dev-1')).toEqual(r);
      expect(await sut.rawFields('app-rt', 'dev-1')).toContain('"encrypted_key":"AQID"');
    });

    it('keeps a large document with quotes, backslashes, control characters and astral characters exactly through create and replace', async () => {
      const tricky = `it's "quoted" \\ back\\\\slashed \u0000\u0001\n\t; DROP TABLE end_devices; -- 😀 ✓ \u2028`;
      const r = record(
        'app-rt',
        'dev-tricky',
        {},
        { name_like: tricky, mac_state: { recent_uplinks: Array.from({ length: 40 }, (_, i) => ({ f_cnt: i, note: tricky })) } },
      );
      expect(await store.create(r)).toEqual({ ok: true });
      expect(await store.get('app-rt', 'dev-tricky')).toEqual(r);
      const next = { ...r, revision: r.revision + 1, fields: { ...r.fields, name_like: `${tricky}${tricky}` } };
      expect(await store.replace(next)).toBe('ok');
      expect(await store.get('app-rt', 'dev-tricky')).toEqual(next);
    });

    it('answers undefined / empty / false for a missing device', async () => {
      expect(await store.get('app-rt', 'nope')).toBeUndefined();
      expect(await store.findCandidates({ application_id: 'app-rt', device_id: 'nope' })).toEqual([]);
      expect(await store.findByDevAddr('FFFFFFFF')).toEqual([]);
      expect(await store.findByEuis(EUI(99), EUI(99))).toEqual([]);
      expect(await store.delete('app-rt', 'nope')).toBe(false);
    });

    it('device IDs are unique per application, not globally', async () => {
      expect(await store.create(record('app-u1', 'same'))).toEqual({ ok: true });
      expect(await store.create(record('app-u1', 'same'))).toEqual({ ok: false, conflict: 'id' });
      expect(await store.create(record('app-u2', 'same'))).toEqual({ ok: true });
    });

    it('JoinEUI + DevEUI are unique where the registry says so; missing EUIs never collide', async () => {
      expect(await store.create(record('app-e', 'e-1', { dev_eui: EUI(10), join_eui: EUI(0) }))).toEqual({ ok: true });
      const second = await store.create(record('app-e2', 'e-2', { dev_eui: EUI(10), join_eui: EUI(0) }));
      if (sut.uniqueEuis) {
        expect(second).toEqual({
          ok: false,
          conflict: 'euis',
          holder: { device_id: 'e-1', application_ids: { application_id: 'app-e' }, dev_eui: EUI(10), join_eui: EUI(0) },
        });
      } else {
        expect(second).toEqual({ ok: true });
        expect((await store.findByEuis(EUI(0), EUI(10))).map((r) => r.ids.device_id).sort()).toEqual(['e-1', 'e-2']);
      }
      expect(await store.create(record('app-e', 'abp-1'))).toEqual({ ok: true });
      expect(await store.create(record('app-e', 'abp-2'))).toEqual({ ok: true });
    });

    it('finds candidates by device_id, by DevEUI (with the JoinEUI when given) and by DevAddr, within the application', async () => {
      await store.create(record('app-c', 'a', { dev_eui: EUI(20), join_eui: EUI(1), dev_addr: '01000001' }));
      await store.create(record('app-c', 'b', { dev_eui: EUI(21), join_eui: EUI(1), dev_addr: '01000001' }));
      await store.create(record('app-c2', 'c', { dev_eui: EUI(22), join_eui: EUI(1), dev_addr: '01000001' }));
      const ids = async (lookup: Parameters<DeviceStore['findCandidates']>[0]) => (await store.findCandidates(lookup)).map((r) => r.ids.device_id).sort();
      expect(await ids({ application_id: 'app-c', device_id: 'a' })).toEqual(['a']);
      expect(await ids({ application_id: 'app-c', device_id: 'a', dev_eui: EUI(21) })).toEqual(['a', 'b']);
      expect(await ids({ application_id: 'app-c', device_id: 'a', dev_eui: EUI(21), join_eui: EUI(2) })).toEqual(['a']);
      expect(await ids({ application_id: 'app-c', device_id: 'a', dev_addr: '01000001' })).toEqual(['a', 'b']);
      expect(await ids({ application_id: 'app-c', device_id: 'zzz', dev_eui: EUI(22) })).toEqual([]);
      expect((await store.findByDevAddr('01000001')).map((r) => r.ids.device_id).sort()).toEqual(['a', 'b', 'c']);
      expect((await store.findByEuis(EUI(1), EUI(20))).map((r) => r.ids.device_id)).toEqual(['a']);
    });

    it('replace needs the revision it read: a stale writer loses', async () => {
      const r = record('app-r', 'dev', {}, { frequency_plan_id: 'EU_863_870' });
      await store.create(r);
      const next = { ...r, revision: 2, updated_at: ts(), ids: { ...r.ids, dev_addr: '26000001' }, fields: { frequency_plan_id: 'US_902_928_FSB_2' } };
      expect(await store.replace(next)).toBe('ok');
      expect(await store.replace({ ...next, fields: { frequency_plan_id: 'lost' } })).toBe('stale');
      expect(await store.get('app-r', 'dev')).toEqual(next);
      expect((await store.findByDevAddr('26000001')).map((d) => d.ids.device_id)).toEqual(['dev']);
    });

    it('replace needs the creation it read: a device deleted and created again is another, even at the same revision', async () => {
      const first = record('app-r', 'again', {}, { frequency_plan_id: 'EU_863_870' });
      await store.create(first);
      const outdated = { ...first, revision: 2, updated_at: ts(), fields: { frequency_plan_id: 'lost' } };
      expect(await store.delete('app-r', 'again')).toBe(true);
      const recreated = record('app-r', 'again', {}, { frequency_plan_id: 'US_902_928_FSB_2' });
      await store.create(recreated);
      expect(await store.replace(outdated)).toBe('stale');
      expect(await store.get('app-r', 'again')).toEqual(recreated);
      const next = { ...recreated, revision: 2, updated_at: ts(), fields: { frequency_plan_id: 'AU_915_928_FSB_2' } };
      expect(await store.replace(next)).toBe('ok');
      expect(await store.get('app-r', 'again')).toEqual(next);
    });

    it('hands back a known record for an uplink’s candidate while it is at the known revision, and reads it afresh once it changed', async () => {
      const current = record('app-k', 'known', { dev_addr: '03000001' }, { session: { dev_addr: '03000001', last_f_cnt_up: 1 } });
      const other = record('app-k', 'neighbour', { dev_addr: '03000001' }, { session: { dev_addr: '03000001' } });
      await store.create(current);
      await store.create(other);
      const found = await store.findBySessionDevAddr('03000001', 16, current);
      expect(found).toHaveLength(2);
      expect(found.find((r) => r.ids.device_id === 'known')).toBe(current);
      expect(found.find((r) => r.ids.device_id === 'neighbour')).toEqual(other);
      const next = { ...current, revision: current.revision + 1, updated_at: ts(), fields: { session: { dev_addr: '03000001', last_f_cnt_up: 2 } } };
      expect(await store.replace(next)).toBe('ok');
      const again = (await store.findBySessionDevAddr('03000001', 16, current)).find((r) => r.ids.device_id === 'known');
      expect(again).not.toBe(current);
      expect(again).toEqual(next);
      // A known record of another device (same revision number) never stands in for this one.
      const impostor = { ...next, ids: { ...next.ids, device_id: 'neighbour-x' }, fields: { forged: true } };
      expect((await store.findBySessionDevAddr('03000001', 16, impostor)).map((r) => r.fields)).not.toContainEqual({ forged: true });
    });

    it('get hands back a known record while the device is at the known revision, and reads it afresh once it changed or was created again', async () => {
      const current = record('app-g', 'known', {}, { formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } });
      await store.create(current);
      expect(await store.get('app-g', 'known', current)).toBe(current);
      const next = { ...current, revision: 2, updated_at: ts(), fields: { formatters: { up_formatter: 'FORMATTER_NONE' } } };
      expect(await store.replace(next)).toBe('ok');
      const again = await store.get('app-g', 'known', current);
      expect(again).not.toBe(current);
      expect(again).toEqual(next);
      // Deleted and created again (revision 1 again): the known record of the first one is not it.
      expect(await store.delete('app-g', 'known')).toBe(true);
      expect(await store.get('app-g', 'known', next)).toBeUndefined();
      const recreated = record('app-g', 'known', {}, { formatters: { up_formatter: 'FORMATTER_JAVASCRIPT' } });
      await store.create(recreated);
      expect(await store.get('app-g', 'known', current)).toEqual(recreated);
      // A known record of another device (same revision number) never stands in for this one.
      const impostor = { ...recreated, ids: { ...recreated.ids, device_id: 'other' }, fields: { forged: true } };
      expect(await store.get('app-g', 'known', impostor)).toEqual(recreated);
    });

    it('finds an uplink’s candidates by the DevAddr of their session or of their pending session (any application), and follows both on replace', async () => {
      await store.create(record('app-s', 'current', { dev_addr: '02000001' }));
      await store.create(record('app-s2', 'pending', { dev_addr: '02000009' }, { pending_session: { dev_addr: '02000001' } }));
      await store.create(record('app-s', 'other', { dev_addr: '02000002' }));
      const ids = async (addr: string, limit = 16) => (await store.findBySessionDevAddr(addr, limit)).map((r) => r.ids.device_id).sort();
      expect(await ids('02000001')).toEqual(['current', 'pending']);
      expect(await ids('02000001', 1)).toHaveLength(1);
      expect(await ids('02000009')).toEqual(['pending']);
      expect(await ids('0200000F')).toEqual([]);
      // The pending session becomes current: found by its DevAddr once, no longer by a pending one.
      const pending = (await store.get('app-s2', 'pending')) as DeviceRecord;
      await store.replace({ ...pending, revision: pending.revision + 1, ids: { ...pending.ids, dev_addr: '02000001' }, fields: {} });
      expect(await ids('02000001')).toEqual(['current', 'pending']);
      expect(await ids('02000009')).toEqual([]);
    });

    it('delete with a revision only deletes that revision', async () => {
      await store.create(record('app-d', 'dev'));
      expect(await store.delete('app-d', 'dev', 7)).toBe(false);
      expect(await store.delete('app-d', 'dev', 1)).toBe(true);
      expect(await store.get('app-d', 'dev')).toBeUndefined();
    });

    it('concurrent creates of one device: exactly one wins', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, () => store.create(record('app-x', 'race'))));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.conflict === 'id')).toBe(true);
    });
  });
}
