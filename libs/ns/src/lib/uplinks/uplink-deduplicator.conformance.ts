import type { UplinkDeduplicator } from './uplink-deduplicator';
import { uplinkKey } from './uplink-deduplicator';

export interface DeduplicatorsUnderTest {
  /** Two handles on the same shared state (two NS replicas). */
  a: UplinkDeduplicator;
  b: UplinkDeduplicator;
  close(): Promise<void>;
}

const timing = { windowMs: 200, cooldownMs: 300 };
let n = 0;
const freshKey = () => uplinkKey({ raw_payload: `frame-${Date.now()}-${n++}`, settings: { frequency: '868100000' } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function eventually(check: () => Promise<boolean>, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(5);
  }
}

/** What every UplinkDeduplicator does (in memory and on JetStream KV). */
export function describeDeduplicatorConformance(name: string, open: () => Promise<DeduplicatorsUnderTest>): void {
  describe(`UplinkDeduplicator (${name})`, () => {
    let sut: DeduplicatorsUnderTest;
    beforeAll(async () => {
      sut = await open();
    });
    afterAll(async () => sut.close());

    it('lets the first copy claim the uplink, counts the others as duplicates and keeps every copy’s metadata', async () => {
      const key = freshKey();
      expect(await sut.a.deduplicate(key, [{ gateway: 'g1', rssi: -40 }], timing)).toBe(true);
      expect(await sut.b.deduplicate(key, [{ gateway: 'g2', rssi: -80 }], timing)).toBe(false);
      expect(
        await sut.a.deduplicate(
          key,
          [
            { gateway: 'g3', rssi: -90 },
            { gateway: 'g3', antenna: 1 },
          ],
          timing,
        ),
      ).toBe(false);
      // The claimer merges (the others' metadata may take a moment to reach it).
      await eventually(async () => (await sut.a.accumulated(key)).length === 4);
      const merged = await sut.a.accumulated(key);
      expect(merged).toEqual(
        expect.arrayContaining([
          { gateway: 'g1', rssi: -40 },
          { gateway: 'g2', rssi: -80 },
          { gateway: 'g3', antenna: 1 },
        ]),
      );
    });

    it('keeps copies apart by payload, frequency and data rate', async () => {
      const payload = `frame-${Date.now()}-${n++}`;
      const k1 = uplinkKey({ raw_payload: payload, settings: { frequency: '868100000' } });
      const k2 = uplinkKey({ raw_payload: payload, settings: { frequency: '868300000' } });
      const k3 = uplinkKey({ raw_payload: payload, settings: { frequency: '868100000', data_rate: { lora: { spreading_factor: 9 } } } });
      expect(new Set([k1, k2, k3]).size).toBe(3);
      for (const k of [k1, k2, k3]) expect(await sut.a.deduplicate(k, [], timing)).toBe(true);
    });

    it('is claimed again after the window and the cooldown, with fresh metadata', async () => {
      // Dated by when each copy was received (not by sleeps, which overshoot on a loaded machine and
      // would land the second copy past the cooldown).
      const key = freshKey();
      const t0 = Date.now();
      expect(await sut.a.deduplicate(key, [{ copy: 1 }], timing, t0)).toBe(true);
      expect(await sut.a.deduplicate(key, [{ copy: 2 }], timing, t0 + timing.windowMs + 50)).toBe(false); // in the cooldown
      expect(await sut.a.deduplicate(key, [{ copy: 3 }], timing, t0 + timing.windowMs + timing.cooldownMs + 50)).toBe(true);
      expect(await sut.a.accumulated(key)).toEqual([{ copy: 3 }]);
    });

    it('dates copies by when the GS received them, not by when the NS got to them', async () => {
      const key = freshKey();
      const at = Date.now() - 10_000;
      expect(await sut.a.deduplicate(key, [{ copy: 1 }], timing, at)).toBe(true);
      // Handled long after (the NS was busy), received 100 ms after the first: a duplicate.
      expect(await sut.b.deduplicate(key, [{ copy: 2 }], timing, at + 100)).toBe(false);
      // Received past the window and the cooldown: the uplink again (a retransmission).
      expect(await sut.b.deduplicate(key, [{ copy: 3 }], timing, at + timing.windowMs + timing.cooldownMs + 1)).toBe(true);
    });

    it('gives exactly one of many racing replicas the claim', async () => {
      const key = freshKey();
      const replica = (i: number) => (i % 2 ? sut.a : sut.b);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => replica(i).deduplicate(key, [{ copy: i }], timing)));
      expect(results.filter(Boolean)).toHaveLength(1);
      const claimer = replica(results.indexOf(true));
      await eventually(async () => (await claimer.accumulated(key)).length === 20);
      expect((await claimer.accumulated(key)).map((m) => (m as { copy: number }).copy).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });
  });
}
