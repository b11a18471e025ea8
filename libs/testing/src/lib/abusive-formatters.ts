/**
 * JavaScript payload formatters that abuse the AS (issue 29, finding 2), for the tenant-safety and
 * fuzz suites and the bench's `formatter_isolation` phase: each is a valid TTS formatter script
 * (`decodeUplink` and `encodeDownlink`) that runs into one of the AS's limits, with the error it gets.
 */
export interface AbusiveFormatter {
  name: string;
  script: string;
  /** The formatter error's name (`pkg/scripting/javascript` or `pkg/messageprocessors/javascript`), or the names when the limit it meets first depends on the machine's speed. */
  error: string | readonly string[];
}

/** Both entry points run `body`. */
const formatter = (body: string) => `function run() { ${body} }
function decodeUplink(input) { return run(); }
function encodeDownlink(input) { return run(); }`;

/** The probe's four scripts (issue 29), which the bench runs at 10/s. */
export const PROBE_FORMATTERS: readonly AbusiveFormatter[] = [
  // The memory bomb: 1.9 GB of AS RSS, never answered. It fills its 32 MiB in 50–150 ms: on a slow or busy machine the time limit comes first.
  { name: 'a memory bomb', script: formatter('var a = []; while (true) a.push(new Array(100000).fill(1));'), error: ['script_memory', 'script_timeout'] },
  // The endless loop (ten at once raised another tenant's p50 from 5 ms to ~1 s).
  { name: 'an endless loop', script: formatter('while (true) {}'), error: 'script_timeout' },
  // The 5000-deep result ("Maximum call stack size exceeded" inside the AS).
  {
    name: 'a 5000-deep result',
    script: formatter('var o = {}; for (var i = 0; i < 5000; i++) o = { a: o }; return { data: o, bytes: [1], o: o };'),
    error: 'output_too_deep',
  },
  // The recursion (a QuickJS runtime left unfreed: `list_empty(&rt->gc_obj_list)`).
  { name: 'endless recursion', script: formatter('return run();'), error: 'script_stack' },
];

/** The probe's scripts and one that only the AS's watchdog stops: a native call that runs for seconds and never reaches QuickJS's interrupt check. */
export const ABUSIVE_FORMATTERS: readonly AbusiveFormatter[] = [
  ...PROBE_FORMATTERS,
  {
    name: 'a native call that never yields',
    script: formatter('var s = "x".repeat(1 << 22), n = "x".repeat(1000) + "y"; return { data: { at: s.indexOf(n) }, bytes: [] };'),
    error: 'script_timeout',
  },
];

/** Whether a formatter error's name is one `f` may get. */
export function isErrorOf(f: AbusiveFormatter, name: unknown): boolean {
  return typeof f.error === 'string' ? name === f.error : f.error.includes(name as string);
}
