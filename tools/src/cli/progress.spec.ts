import { Progress } from './progress';

function output(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, write: (text: string) => written.push(text), written };
}

describe('Progress', () => {
  it('not a terminal: a plain line at each tenth, the final line once', () => {
    let now = 0;
    const out = output(false);
    const progress = new Progress('imported', 100, out, () => now);
    for (let i = 0; i < 100; i++) {
      now += 10;
      progress.add(1);
    }
    progress.finish();
    expect(out.written).toHaveLength(10);
    expect(out.written[0]).toBe('imported 10/100 10% 100/s ETA 1s\n');
    expect(out.written[9]).toBe('imported 100/100 100% 100/s ETA 0s\n');
  });

  it('not a terminal: at least every 5 s when a tenth takes longer', () => {
    let now = 0;
    const out = output(false);
    const progress = new Progress('imported', 1000, out, () => now);
    progress.add(1);
    now = 6000;
    progress.add(1);
    expect(out.written).toEqual(['imported 2/1000 0% 0/s ETA 49m54s\n']);
  });

  it('a terminal: one line rewritten in place, at most every 100 ms, ended by finish', () => {
    let now = 0;
    const out = output(true);
    const progress = new Progress('exported', undefined, out, () => now);
    now = 200;
    progress.add(50);
    now = 250;
    progress.add(50);
    progress.setTotal(400);
    now = 1000;
    progress.add(100);
    progress.finish();
    expect(out.written).toEqual(['\rexported 50 250/s\x1b[K', '\rexported 200/400 50% 200/s ETA 1s\x1b[K', '\rexported 200/400 50% 200/s ETA 1s\x1b[K', '\n']);
  });
});
