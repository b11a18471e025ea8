import { Pushback } from './pushback';

describe('Pushback', () => {
  const share = (p: Pushback) => Array.from({ length: 1000 }, (_, i) => i / 1000).filter((draw) => p.refuse(draw)).length / 1000;

  it('refuses nothing until the peer refuses, then a share raised by each refusal and lowered by each answer, never above max', () => {
    const p = new Pushback({ up: 0.1, down: 0.01, max: 0.9, now: () => 0 });
    expect(share(p)).toBe(0);
    p.refused();
    p.refused();
    expect(p.current).toBeCloseTo(0.2);
    expect(share(p)).toBeCloseTo(0.2, 2);
    for (let i = 0; i < 10; i++) p.answered();
    expect(p.current).toBeCloseTo(0.1);
    for (let i = 0; i < 50; i++) p.refused();
    expect(p.current).toBe(0.9);
    for (let i = 0; i < 1000; i++) p.answered();
    expect(p.current).toBe(0);
    expect(share(p)).toBe(0);
  });

  it('halves every half-life by itself: no work, no refusals, and it is gone', () => {
    let now = 1000;
    const p = new Pushback({ up: 0.5, halfLifeMs: 500, now: () => now });
    p.refused();
    expect(p.current).toBeCloseTo(0.5);
    now += 500;
    expect(p.current).toBeCloseTo(0.25);
    now += 500;
    expect(share(p)).toBeCloseTo(0.125, 2);
    now += 5000;
    expect(p.current).toBe(0);
    expect(share(p)).toBe(0);
  });

  it('under a steady overload, settles where the door refuses most of the excess and the peer a small part of what reaches it', () => {
    // A peer that can take one of every three offered, 3000 offered a second for 100 s.
    let now = 0;
    const p = new Pushback({ now: () => now });
    let reached = 0;
    let refusedByPeer = 0;
    let credit = 0;
    for (let i = 0; i < 300_000; i++) {
      now = i / 3;
      credit = Math.min(credit + 1 / 3, 10);
      if (p.refuse(Math.random())) continue;
      reached++;
      if (credit >= 1) {
        credit -= 1;
        p.answered();
      } else {
        refusedByPeer++;
        p.refused();
      }
    }
    expect(refusedByPeer / reached).toBeGreaterThan(0.05);
    expect(refusedByPeer / reached).toBeLessThan(0.2);
    const doorRefusedShare = 1 - reached / 300_000;
    expect(doorRefusedShare).toBeGreaterThan(0.5);
    expect(doorRefusedShare).toBeLessThan(0.67);
  });
});
