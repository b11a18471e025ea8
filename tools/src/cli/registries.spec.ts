import { ALLOWED_PATHS, KEY_PATHS, QUEUE_PATHS } from '@lorawan/api';
import { batchPath, exportMask } from './registries';

/** Whether a mask path selects `path` (equal, or a parent of it). */
const selects = (mask: string[], path: string) => mask.some((p) => p === path || path.startsWith(`${p}.`));

describe('batchPath', () => {
  it('is the collection path with /batch', () => {
    expect(batchPath('IS', 'app1')).toBe('/api/v3/applications/app1/devices/batch');
    expect(batchPath('NS', 'app1')).toBe('/api/v3/ns/applications/app1/devices/batch');
  });
});

describe('exportMask', () => {
  it.each(['JS', 'NS', 'AS'] as const)('%s: key material only with keys, downlink queues never', (registry) => {
    const withKeys = exportMask(registry, true).split(',');
    const withoutKeys = exportMask(registry, false).split(',');
    const allowed = [...ALLOWED_PATHS[`${registry === 'JS' ? 'Js' : registry === 'NS' ? 'Ns' : 'As'}EndDeviceRegistry.Get`]];
    const keyPaths = KEY_PATHS.read.filter((path) => allowed.includes(path));
    expect(keyPaths.length).toBeGreaterThan(0);
    for (const path of keyPaths) {
      expect(selects(withKeys, path)).toBe(true);
      expect(selects(withoutKeys, path)).toBe(false);
    }
    for (const path of QUEUE_PATHS) {
      expect(selects(withKeys, path)).toBe(false);
      expect(selects(withoutKeys, path)).toBe(false);
    }
    expect(withoutKeys).toContain('ids');
  });

  it('keeps what is not a key: the session without its keys, the shortest prefixes', () => {
    const ns = exportMask('NS', false).split(',');
    expect(ns).toEqual(expect.arrayContaining(['mac_settings', 'session.dev_addr', 'session.keys.session_key_id', 'frequency_plan_id']));
    expect(ns).not.toContain('session');
    expect(ns).not.toContain('mac_settings.rx1_delay');
    expect(exportMask('JS', true).split(',')).toContain('root_keys');
  });
});
