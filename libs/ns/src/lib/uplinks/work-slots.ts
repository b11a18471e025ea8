/**
 * At most `size` tasks at a time, the others waiting their turn in arrival order. The Network
 * Server runs the costly part of its uplink handling (device lookup, MIC, the device's write)
 * through it: under more load than it can take it works at its pace, in order, instead of starting
 * everything at once and slowing every uplink down together.
 */
export class WorkSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  /** How many tasks wait for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot goes straight to the next task (the running count stays), else it is freed.
      if (next) next();
      else this.running--;
    }
  }
}
