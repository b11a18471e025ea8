import type { StackError } from '@lorawan/errors';

/** Optimistic update rounds; each round at least one concurrent writer wins, the others back off and retry. */
const UPDATE_ATTEMPTS = 16;

/**
 * Read, change, write-if-unchanged, retried with a random back-off while another writer got there
 * first (the row's `updated_at` is the version). `save` answers false when the row changed
 * meanwhile; `load` throws when the row is gone.
 */
export async function updateOptimistically<T extends { updated_at: string }>(
  load: () => Promise<T>,
  change: (current: T) => T,
  save: (next: T, expectedUpdatedAt: string) => Promise<boolean>,
  conflict: () => StackError,
): Promise<T> {
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
    const current = await load();
    const next = change(current);
    if (await save(next, current.updated_at)) return next;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2 + attempt * 2, 20)));
  }
  throw conflict();
}
