/**
 * Progress of a long command on stderr: on a terminal one line rewritten in place (done/total,
 * percentage, devices per second, ETA), at most every 100 ms; otherwise a plain line at every
 * tenth of the total and at least every 5 s, so a log shows the run advancing.
 */
export interface ProgressOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

const TTY_INTERVAL_MS = 100;
const PLAIN_INTERVAL_MS = 5000;

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export class Progress {
  private done = 0;
  private readonly started: number;
  private lastShown = 0;
  private lastStep = 0;
  /** `done` when the last line was written: the final line is not written twice. */
  private shownDone = -1;

  constructor(
    private readonly label: string,
    /** Undefined when unknown (an export before the first page). */
    private total: number | undefined,
    private readonly out: ProgressOutput,
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
  }

  setTotal(total: number): void {
    this.total = total;
  }

  add(count: number): void {
    this.done += count;
    const now = this.now();
    if (this.out.isTTY) {
      if (now - this.lastShown >= TTY_INTERVAL_MS) this.show(now);
      return;
    }
    const step = this.total ? Math.floor((this.done * 10) / this.total) : 0;
    if (step > this.lastStep || now - this.lastShown >= PLAIN_INTERVAL_MS) {
      this.lastStep = step;
      this.show(now);
    }
  }

  /** The final line (on a terminal, ends the line being rewritten). */
  finish(): void {
    if (this.out.isTTY || this.shownDone !== this.done) this.show(this.now());
    if (this.out.isTTY) this.out.write('\n');
  }

  /** `label 1200/5000 24% 950/s ETA 4s`. */
  line(now = this.now()): string {
    const seconds = (now - this.started) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    let text = `${this.label} ${this.done}${this.total !== undefined ? `/${this.total}` : ''}`;
    if (this.total) text += ` ${Math.floor((this.done * 100) / this.total)}%`;
    text += ` ${Math.round(rate)}/s`;
    if (this.total !== undefined) text += ` ETA ${duration(rate > 0 ? (this.total - this.done) / rate : Infinity)}`;
    return text;
  }

  private show(now: number): void {
    this.lastShown = now;
    this.shownDone = this.done;
    // `\x1b[K` clears what a longer previous line left.
    this.out.write(this.out.isTTY ? `\r${this.line(now)}\x1b[K` : `${this.line(now)}\n`);
  }
}
