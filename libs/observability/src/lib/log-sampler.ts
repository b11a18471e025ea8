/**
 * Bounds how often one kind of log line is written: the first occurrence of a kind in each
 * interval passes, carrying how many were held back since the previous one, so a flood (datagrams
 * of unknown gateways, refused connections) costs a few lines per interval instead of one each.
 * Kinds are a small fixed set (reasons, not addresses or EUIs): one entry is kept per kind.
 */
export class LogSampler {
  private readonly kinds = new Map<string, { at: number; held: number }>();

  constructor(
    private readonly intervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Undefined: hold this line back; else log it, with the number of lines of `kind` held back since the last. */
  sample(kind: string): number | undefined {
    const now = this.now();
    const last = this.kinds.get(kind);
    if (last && now - last.at < this.intervalMs) {
      last.held++;
      return undefined;
    }
    this.kinds.set(kind, { at: now, held: 0 });
    return last?.held ?? 0;
  }
}
