import { readdirSync, readFileSync } from 'node:fs';
import { spawnApp, type Spawned, stopAll, waitReady } from '@lorawan/testing';

export type Proc = Spawned;

/**
 * Spawns a node script of dist/ (the test launcher's spawn). `BENCH_CPU_PROF=<dir>` adds
 * `--cpu-prof` (the profile is written when the process exits on SIGTERM).
 */
export function spawnNode(name: string, script: string, env: Record<string, string>): Proc {
  return spawnApp(name, script, [], env, profileFlags(name));
}

/** Node's flags for a CPU profile of the named process when `BENCH_CPU_PROF=<dir>` asks for them. */
export function profileFlags(name: string): string[] {
  const profDir = process.env.BENCH_CPU_PROF;
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  return [...extra, ...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${name.replace(/[^a-z0-9-]/gi, '_')}.cpuprofile`] : [])];
}

export const waitHttpReady = (url: string, procs: Proc[], timeoutMs = 60000): Promise<void> => waitReady([url], procs, timeoutMs);
export const stopProcs = stopAll;

export function logsOf(procs: Proc[]): string {
  return procs.map((p) => `--- ${p.name}\n${p.output.join('')}`).join('\n');
}

const CLOCK_TICKS_PER_S = 100;

/** CPU time (user + system) a process has used so far, in ms; undefined when it is gone. */
export function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "(comm) ": state is field 3 of stat(5), utime 14 and stime 15.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return undefined;
  }
}

/** CPU time in ms of the terminated children this process has waited for (cutime + cstime of stat(5)). */
export function reapedChildrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS_PER_S;
}

/** A process's resident memory in MB; undefined when it is gone. */
export function rssMb(pid: number): number | undefined {
  try {
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return rss ? Math.round(Number(rss[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system + irq) all cores of the machine have been busy so far, in ms (from /proc/stat). */
export function machineBusyMs(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …: busy = all but idle and iowait.
  const busy = fields.slice(0, 8).reduce((a, b) => a + b, 0) - fields[3] - fields[4];
  return (busy * 1000) / CLOCK_TICKS_PER_S;
}

/**
 * Pids of processes whose command name is one of `names` (e.g. the machine's mariadbd and
 * nats-server). A service the init process runs (parent pid 1) comes before others of the same
 * name: a test suite's private MariaDB or NATS (`@lorawan/testing`'s private services, child of a
 * test process) is not the machine's, and may be gone before the measurement ends.
 */
export function pidsByName(names: string[]): Record<string, number> {
  const found: Record<string, number> = {};
  const service: Record<string, boolean> = {};
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (!names.includes(comm) || service[comm]) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After "(comm) ": state, then the parent pid.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!(comm in found) || ppid === 1) [found[comm], service[comm]] = [Number(entry), ppid === 1];
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
