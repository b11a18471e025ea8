import { fieldSelector, normalizePaths, selectFields } from './field-mask';
import { ALLOWED_PATHS } from './allowed-paths';

/** The definition: drop duplicates and paths under another requested path, sort. */
function reference(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter((p) => !unique.some((q) => q !== p && p.startsWith(`${q}.`))).sort();
}

describe('normalizePaths', () => {
  it('agrees with its definition', () => {
    const pool = [...new Set(Object.values(ALLOWED_PATHS).flatMap((set) => [...set]))];
    pool.push('', '.', 'a.', '.a', 'a..b', 'a', 'a.b', 'ab', 'ab.c', 'a.bc');
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    for (let round = 0; round < 2000; round++) {
      const paths = Array.from({ length: rnd(60) }, () => pool[rnd(pool.length)]);
      expect(normalizePaths(paths)).toEqual(reference(paths));
    }
    expect(normalizePaths(pool)).toEqual(reference(pool));
  });
});

describe('fieldSelector', () => {
  it('selects as selectFields does', () => {
    const device = {
      ids: { device_id: 'd' },
      mac_settings: { rx1_delay: 5, use_adr: true },
      session: { keys: { f: { key: 'k' } }, dev_addr: '01020304' },
      name: 'n',
    };
    const paths = ['ids', 'mac_settings.rx1_delay', 'session', 'session.keys.f', 'absent.x', 'name', 'name'];
    const select = fieldSelector<typeof device>(paths);
    expect(select(device)).toEqual(selectFields(device, paths));
    expect(select({ ...device, name: undefined } as never)).toEqual(selectFields({ ...device, name: undefined }, paths));
    expect(select(device).session).toBe(device.session); // a selection shares the source's values, as selectFields does
  });
});
