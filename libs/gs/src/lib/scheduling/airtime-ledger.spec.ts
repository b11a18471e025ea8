import { AirtimeLedger } from './airtime-ledger';

/** The airtime of the emissions in [from, to], one by one: what the ledger must answer. */
function bruteForce(emissions: readonly [number, number][], from: number, to: number): number {
  return emissions.reduce((sum, [starts, ends]) => sum + Math.max(0, Math.min(ends, to) - Math.max(starts, from)), 0);
}

/** A small deterministic generator (xorshift32), so the random cases are the same on every run. */
function random(seed: number): (below: number) => number {
  let state = seed >>> 0 || 1;
  return (below) => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state % below;
  };
}

describe('airtime ledger', () => {
  it('answers the airtime inside an interval, clipping emissions at both ends', () => {
    const ledger = new AirtimeLedger();
    ledger.add(100, 200);
    ledger.add(300, 350);
    expect(ledger.within(0, 1000)).toBe(150);
    expect(ledger.within(150, 320)).toBe(50 + 20);
    expect(ledger.within(120, 180)).toBe(60);
    expect(ledger.within(200, 300)).toBe(0);
    expect(ledger.within(0, 100)).toBe(0);
    expect(ledger.startsBetween(100, 300)).toEqual([100, 300]);
    expect(ledger.startsBetween(101, 299)).toEqual([]);
    expect(ledger.endsBetween(200, 349)).toEqual([200]);
  });

  it('agrees with a sum over every emission, for overlapping emissions added out of order', () => {
    const next = random(32);
    const emissions: [number, number][] = [];
    const ledger = new AirtimeLedger();
    for (let i = 0; i < 300; i++) {
      const starts = 1_700_000_000_000_000 + next(1_000_000);
      const ends = starts + next(5_000);
      emissions.push([starts, ends]);
      ledger.add(starts, ends);
    }
    for (let i = 0; i < 300; i++) {
      const from = 1_700_000_000_000_000 + next(1_010_000) - 5_000;
      const to = from + next(200_000);
      expect(ledger.within(from, to)).toBe(bruteForce(emissions, from, to));
    }
  });

  it('stays exact from the cutoff on after forgetting what ended before it, and forgets it', () => {
    const next = random(7);
    const emissions: [number, number][] = [];
    const ledger = new AirtimeLedger();
    for (let i = 0; i < 200; i++) {
      const starts = next(1_000_000);
      const ends = starts + 1 + next(20_000);
      emissions.push([starts, ends]);
      ledger.add(starts, ends);
    }
    const cutoff = 500_000;
    ledger.forget(cutoff);
    expect(ledger.size).toBe(emissions.filter(([, ends]) => ends > cutoff).length);
    for (let i = 0; i < 200; i++) {
      const from = cutoff + next(600_000);
      const to = from + next(300_000);
      expect(ledger.within(from, to)).toBe(bruteForce(emissions, from, to));
    }
    // Emissions added after forgetting count with those remembered.
    emissions.push([1_100_000, 1_150_000]);
    ledger.add(1_100_000, 1_150_000);
    expect(ledger.within(cutoff, 2_000_000)).toBe(bruteForce(emissions, cutoff, 2_000_000));
    ledger.forget(2_000_000);
    expect(ledger.size).toBe(0);
    expect(ledger.within(0, 3_000_000)).toBe(0);
  });
});
