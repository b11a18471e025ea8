import { RUNAWAY_WINDOW_MS, RunawayBudget } from './runaway-budget';

describe('RunawayBudget', () => {
  it('suspends an application after `perMinute` runaways within a minute, until the oldest is a minute old', () => {
    const budget = new RunawayBudget(3);
    budget.record('app', 1000);
    budget.record('app', 2000);
    expect(budget.suspendedUntil('app', 2500)).toBeUndefined();
    budget.record('app', 3000);
    expect(budget.suspendedUntil('app', 3000)).toBe(1000 + RUNAWAY_WINDOW_MS);
    expect(budget.suspendedUntil('app', 1000 + RUNAWAY_WINDOW_MS - 1)).toBe(1000 + RUNAWAY_WINDOW_MS);
    expect(budget.suspendedUntil('app', 1000 + RUNAWAY_WINDOW_MS)).toBeUndefined();
    // One more runaway right after the suspension suspends again until the next oldest is a minute old.
    budget.record('app', 1000 + RUNAWAY_WINDOW_MS);
    expect(budget.suspendedUntil('app', 1000 + RUNAWAY_WINDOW_MS)).toBe(2000 + RUNAWAY_WINDOW_MS);
  });

  it('counts only runaways within the window, and each application apart', () => {
    const budget = new RunawayBudget(2);
    budget.record('app', 0);
    budget.record('app', RUNAWAY_WINDOW_MS);
    expect(budget.suspendedUntil('app', RUNAWAY_WINDOW_MS)).toBeUndefined();
    budget.record('other', RUNAWAY_WINDOW_MS);
    expect(budget.suspendedUntil('other', RUNAWAY_WINDOW_MS)).toBeUndefined();
    budget.record('app', RUNAWAY_WINDOW_MS + 1);
    expect(budget.suspendedUntil('app', RUNAWAY_WINDOW_MS + 1)).toBe(2 * RUNAWAY_WINDOW_MS);
    expect(budget.suspendedUntil('other', RUNAWAY_WINDOW_MS + 1)).toBeUndefined();
  });

  it('never suspends with a budget of 0', () => {
    const budget = new RunawayBudget(0);
    for (let t = 0; t < 100; t++) budget.record('app', t);
    expect(budget.suspendedUntil('app', 100)).toBeUndefined();
  });
});
