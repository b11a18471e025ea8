/**
 * One run of a formatter script, as it crosses between the AS and a formatter worker thread
 * (`postMessage`): plain data only, JSON text for the values.
 */

/** A script, its input and the expression that calls its entry point. */
export interface ScriptCall {
  /** The formatter's script (its parameter). */
  script: string;
  /** JSON of the global `input` the entry sees (`recvTime`, when present, becomes a Date). */
  input: string;
  /** An expression over `input`: the entry point's call, or `{ __missing: '<name>' }` when the script has none. */
  entry: string;
}

/** How limits of a run are set in a worker: from the AS's configuration (FORMATTER_*). */
export interface SandboxLimits {
  /** Wall-clock limit of one run (TTS: 100 ms). */
  timeoutMs: number;
  /** The QuickJS heap of a worker (its WebAssembly memory's maximum, and QuickJS's own limit), bytes. */
  memoryBytes: number;
  /** QuickJS's stack limit, bytes. */
  stackBytes: number;
  /** The result's JSON text, bytes. */
  maxOutputBytes: number;
  /** How deeply the result's arrays and objects may nest (the result itself is level 1). */
  maxOutputDepth: number;
}

/** Why a run failed. */
export type ScriptFailureKind = 'timeout' | 'memory' | 'stack' | 'output_too_large' | 'output_too_deep' | 'runtime' | 'interrupt';

export interface ScriptFailure {
  kind: ScriptFailureKind;
  /** The script's error (`runtime`), or what stopped it (`interrupt`). */
  message?: string;
}

/** The result of a run: JSON text of the entry's value (absent for `undefined`), or the failure. */
export type ScriptOutcome = { ok: true; output?: string } | { ok: false; failure: ScriptFailure };

/** AS → worker. */
export interface ScriptRequest {
  id: number;
  call: ScriptCall;
}

/**
 * Worker → AS: a run's outcome; `fatal` when the sandbox cannot be trusted after it (the host's
 * stack overflowed inside QuickJS, or QuickJS aborted), so the worker must be replaced.
 */
export interface ScriptResponse {
  id: number;
  outcome: ScriptOutcome;
  fatal?: boolean;
}

/** Worker → AS, once QuickJS is loaded. */
export interface WorkerReady {
  ready: true;
}

/** What a worker starts with (`workerData`). */
export interface WorkerSetup {
  limits: SandboxLimits;
  /** The QuickJS WebAssembly module, compiled once by the AS. */
  wasmModule: WebAssembly.Module;
  /** Nice value of the worker's thread (Linux), 0 to keep the process's. */
  nice: number;
}
