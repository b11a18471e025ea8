import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** dist/ (this file runs as dist/tools/src/bench/procs.js). */
export const DIST = process.env.LW_DIST_DIR ?? resolve(__dirname, '../../..');

export interface Proc {
  name: string;
  child: ChildProcess;
  output: string[];
}

/**
 * Spawns a node script of dist/ with a minimal environment. `BENCH_CPU_PROF=<dir>` adds
 * `--cpu-prof` (the profile is written when the process exits on SIGTERM).
 */
export function spawnNode(name: string, script: string, env: Record<string, string>): Proc {
  const flags: string[] = [];
  const profDir = process.env.BENCH_CPU_PROF;
  if (profDir) flags.push('--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${name.replace(/[^a-z0-9-]/gi, '_')}.cpuprofile`);
  const child = spawn(process.execPath, [...flags, join(DIST, script)], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const keep = (d: Buffer) => {
    output.push(d.toString());
    if (output.length > 200) output.splice(0, output.length - 200);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { name, child, output };
}

export async function waitHttpReady(url: string, procs: Proc[], timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dead = procs.find((p) => p.child.exitCode !== null);
    if (dead) throw new Error(`${dead.name} exited with ${dead.child.exitCode}:\n${dead.output.join('')}`);
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms:\n${procs.map((p) => `--- ${p.name}\n${p.output.join('')}`).join('\n')}`);
}

export async function stopProcs(procs: Proc[]): Promise<void> {
  await Promise.all(
    procs.map(
      (p) =>
        new Promise<void>((res) => {
          if (p.child.exitCode !== null || p.child.signalCode !== null) return res();
          const kill = setTimeout(() => p.child.kill('SIGKILL'), 10000);
          p.child.once('exit', () => {
            clearTimeout(kill);
            res();
          });
          p.child.kill('SIGTERM');
        }),
    ),
  );
}

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

/** Pids of processes whose command name is one of `names` (e.g. the machine's mariadbd and nats-server). */
export function pidsByName(names: string[]): Record<string, number> {
  const found: Record<string, number> = {};
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (names.includes(comm) && !(comm in found)) found[comm] = Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
