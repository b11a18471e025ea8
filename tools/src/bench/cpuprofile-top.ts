import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Summary of the `.cpuprofile` files `BENCH_CPU_PROF=<dir>` writes: for each process, where its
 * samples go by library and the functions with the most self time.
 *
 *   node dist/tools/src/bench/cpuprofile-top.js <dir> [skip seconds, default 0] [top N, default 25]
 *
 * `skip` drops the first seconds of each profile (start-up, seeding). V8 samples wall time while
 * the thread runs JavaScript or native code, so time a process spends preempted inside a call
 * (typically a socket write that wakes the receiving process on a busy 2-core machine) is
 * charged to that call: read `writeBuffer`/`writev` as "socket writes, including waiting for the
 * CPU", and compare with the user/system CPU split of /proc/<pid>/stat.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** `node_modules/<pkg>/…` and `dist/<libs|apps>/<name>/…` shortened to what they are. */
function shortUrl(url: string): string {
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('node_modules/');
  if (nm >= 0) return u.slice(nm + 'node_modules/'.length);
  const dist = u.indexOf('/dist/');
  return dist >= 0 ? u.slice(dist + '/dist/'.length) : u;
}

function library(frame: CallFrame): string {
  if (!frame.url) return frame.functionName;
  const u = shortUrl(frame.url);
  if (u.startsWith('node:')) return `node:${u.slice(5).split('/')[0]}`;
  const parts = u.split('/');
  if (frame.url.includes('node_modules/')) return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  return parts.length > 1 ? `${parts[0]}/${parts[1]}` : u;
}

function summarise(file: string, skipS: number, top: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const libs = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  let t = profile.startTime;
  let busy = 0;
  let idle = 0;
  const from = profile.startTime + skipS * 1e6;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (t < from) continue;
    const frame = (byId.get(profile.samples[i]) as ProfileNode).callFrame;
    if (frame.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    busy += dt;
    add(self, `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`, dt);
    add(libs, library(frame), dt);
  }
  const pct = (v: number) => `${((100 * v) / Math.max(1, busy)).toFixed(1).padStart(5)}%`;
  const sorted = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  return [
    `=== ${file}: busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s (after the first ${skipS} s)`,
    '-- self time by library',
    ...sorted(libs, 12).map(([k, v]) => `${pct(v)} ${k}`),
    '-- top self time',
    ...sorted(self, top).map(([k, v]) => `${pct(v)} ${k}`),
    '',
  ].join('\n');
}

function main(): void {
  const [dir, skip = '0', top = '25'] = process.argv.slice(2);
  if (!dir) {
    process.stderr.write('usage: node dist/tools/src/bench/cpuprofile-top.js <dir> [skip seconds] [top N]\n');
    process.exit(2);
  }
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  for (const f of files) process.stdout.write(`${summarise(join(dir, f), Number(skip), Number(top))}\n`);
}

main();
