import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
  shouldInterruptAfterDeadline,
} from 'quickjs-emscripten';
import { boundedJsonStringify, jsonDepth, OUTPUT_TOO_DEEP, OUTPUT_TOO_LARGE } from './bounded-json';
import type { SandboxLimits, ScriptCall, ScriptFailure, ScriptOutcome } from './script-call';

/** Emscripten's smallest memory for this build (its INITIAL_MEMORY, 16 MiB), in 64 KiB pages. */
const INITIAL_PAGES = 256;
const PAGE_BYTES = 65536;

/**
 * The release build of QuickJS (sync variant). The variant is built from static requires rather
 * than the package's own `import()` so that it also loads under jest's CommonJS; the package's
 * subpath exports are invisible to `moduleResolution: node`, hence `require`.
 */
const RELEASE_SYNC: QuickJSSyncVariant = {
  type: 'sync',
  // `require` is untyped: each module is taken as what the variant's loader expects of it (its package's own `exports`).
  importFFI: () => Promise.resolve((require('@jitl/quickjs-wasmfile-release-sync/ffi') as { QuickJSFFI: Loaded<'importFFI'> }).QuickJSFFI),
  importModuleLoader: () => Promise.resolve(require('@jitl/quickjs-wasmfile-release-sync/emscripten-module') as Loaded<'importModuleLoader'>),
};

/** What a loader of the sync variant resolves to. */
type Loaded<K extends 'importFFI' | 'importModuleLoader'> = Awaited<ReturnType<QuickJSSyncVariant[K]>>;

/** A typical decoder, run once when a worker starts. */
const WARM_UP_SCRIPT = `function decodeUplink(input) {
  var data = { sum: 0, hex: '' };
  for (var i = 0; i < input.bytes.length; i++) { data.sum += input.bytes[i]; data.hex += input.bytes[i].toString(16); }
  return { data: data, warnings: [] };
}`;

/** The outcome of one run, and whether the sandbox is still sound after it. */
export interface SandboxResult {
  outcome: ScriptOutcome;
  /** The host's stack overflowed inside QuickJS, or QuickJS aborted: its heap cannot be trusted, nor freed. */
  fatal: boolean;
}

/**
 * Runs untrusted payload-formatter scripts in QuickJS compiled to WebAssembly
 * (`quickjs-emscripten`), in a formatter worker thread: the script sees only the ECMAScript
 * built-ins (no `require`, `process`, timers, I/O or host objects; data crosses as JSON text).
 * Each run gets its own runtime and context, disposed on every path, with an interrupt handler that
 * stops it at its deadline and QuickJS's stack limit.
 *
 * Memory: this build's QuickJS counts an allocation as 8 bytes whatever its size (it has no
 * `malloc_usable_size`), so its memory limit alone stops only single large allocations. The real
 * bound is the WebAssembly memory, created here with a maximum of `memoryBytes`: when it is full,
 * `malloc` fails and the script gets QuickJS's "out of memory". (The module's own memory would grow
 * to 2 GiB and never shrink.)
 *
 * Stack: QuickJS checks its stack limit against its own (WebAssembly) stack, while each of its
 * calls also takes the thread's native stack; the worker's 4 MiB stack holds QuickJS's 512 KiB
 * limit with room to spare (the AS's main thread, with about 1 MiB, did not). Native recursion that
 * QuickJS does not check (its `JSON.stringify` of a deep structure) can still overflow the thread's
 * stack: that run is reported `fatal`, the runtime is not touched again, and the worker is replaced.
 */
export class QuickJsSandbox {
  private constructor(
    private readonly quickJs: QuickJSWASMModule,
    private readonly limits: SandboxLimits,
  ) {}

  /** QuickJS in a WebAssembly memory of at most `limits.memoryBytes`, run once so that the first call does not pay for WebAssembly's warm-up. */
  static async load(limits: SandboxLimits, wasmModule: WebAssembly.Module): Promise<QuickJsSandbox> {
    const maximum = Math.max(INITIAL_PAGES, Math.floor(limits.memoryBytes / PAGE_BYTES));
    const wasmMemory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum });
    const sandbox = new QuickJsSandbox(await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule, wasmMemory })), limits);
    sandbox.run({ script: WARM_UP_SCRIPT, input: '{"bytes":[1,2,3],"fPort":1}', entry: 'decodeUplink(input)' });
    return sandbox;
  }

  /**
   * Evaluates the call's script, then its entry (an expression over the global `input`, parsed from
   * the call's input), and returns the entry's value as bounded JSON text.
   */
  run(call: ScriptCall): SandboxResult {
    const deadline = Date.now() + this.limits.timeoutMs;
    const runtime = this.quickJs.newRuntime();
    let fatal = false;
    try {
      runtime.setMemoryLimit(this.limits.memoryBytes);
      runtime.setMaxStackSize(this.limits.stackBytes);
      runtime.setInterruptHandler(shouldInterruptAfterDeadline(deadline));
      const vm = runtime.newContext();
      try {
        return { outcome: this.evaluate(vm, call, deadline), fatal: false };
      } catch (err) {
        fatal = true;
        return { outcome: { ok: false, failure: hostFailure(err) }, fatal };
      } finally {
        if (!fatal) vm.dispose();
      }
    } finally {
      if (!fatal) runtime.dispose();
    }
  }

  private evaluate(vm: QuickJSContext, call: ScriptCall, deadline: number): ScriptOutcome {
    const script = vm.evalCode(call.script, 'formatter.js');
    if (script.error) return { ok: false, failure: this.failure(vm, script.error, deadline) };
    script.value.dispose();
    const { maxOutputDepth, maxOutputBytes } = this.limits;
    const runner = `(function () {
      var serialize = ${boundedJsonStringify.toString()};
      var input = JSON.parse(${JSON.stringify(call.input)});
      if (typeof input.recvTime === 'string') input.recvTime = new Date(input.recvTime);
      var out = ${call.entry};
      return serialize(out, ${maxOutputDepth}, ${maxOutputBytes});
    })()`;
    const result = vm.evalCode(runner, 'entry.js');
    if (result.error) return { ok: false, failure: this.failure(vm, result.error, deadline) };
    try {
      const type = vm.typeof(result.value);
      if (type === 'undefined') return { ok: true };
      if (type !== 'string') return { ok: false, failure: { kind: 'runtime', message: 'the result is not JSON text' } };
      return checkedOutput(vm.getString(result.value), this.limits);
    } finally {
      result.value.dispose();
    }
  }

  /**
   * The script's exception, classified (the handle is released here). Read property by property,
   * never with `vm.dump` (which would run QuickJS's recursive JSON.stringify on a thrown object).
   */
  private failure(vm: QuickJSContext, handle: QuickJSHandle, deadline: number): ScriptFailure {
    let name: string | undefined;
    let message: string;
    try {
      // QuickJS throws null when it cannot even allocate its "out of memory" error (a script's own `throw null` reads the same).
      if (vm.sameValue(handle, vm.null)) return { kind: 'memory' };
      if (vm.typeof(handle) === 'object') {
        name = stringProperty(vm, handle, 'name');
        message = stringProperty(vm, handle, 'message') ?? '';
      } else {
        message = vm.typeof(handle) === 'string' ? vm.getString(handle) : vm.typeof(handle) === 'number' ? String(vm.getNumber(handle)) : vm.typeof(handle);
      }
    } finally {
      handle.dispose();
    }
    if (name === 'InternalError' && message === 'interrupted' && Date.now() >= deadline) return { kind: 'timeout' };
    if (name === 'InternalError' && (message === 'out of memory' || message === 'string too long')) return { kind: 'memory' };
    if (message === 'stack overflow') return { kind: 'stack' };
    if (name === 'RangeError' && message.startsWith(OUTPUT_TOO_DEEP)) return { kind: 'output_too_deep' };
    if (name === 'RangeError' && message.startsWith(OUTPUT_TOO_LARGE)) return { kind: 'output_too_large' };
    return { kind: 'runtime', message: `${name ?? 'Error'}: ${message}`.slice(0, 1024) };
  }
}

/** A string property of a QuickJS object, undefined when it is not a string or reading it throws (a getter, a Proxy). */
function stringProperty(vm: QuickJSContext, handle: QuickJSHandle, key: string): string | undefined {
  let value: QuickJSHandle | undefined;
  try {
    value = vm.getProp(handle, key);
    return vm.typeof(value) === 'string' ? vm.getString(value) : undefined;
  } catch {
    return undefined;
  } finally {
    value?.dispose();
  }
}

/** The bounds checked again on the text that leaves the sandbox: the script may have replaced the built-ins the serializer uses. */
function checkedOutput(json: string, limits: SandboxLimits): ScriptOutcome {
  if (Buffer.byteLength(json, 'utf8') > limits.maxOutputBytes) return { ok: false, failure: { kind: 'output_too_large' } };
  if (jsonDepth(json) > limits.maxOutputDepth) return { ok: false, failure: { kind: 'output_too_deep' } };
  return { ok: true, output: json };
}

/** An exception of the host while QuickJS ran: the thread's stack overflowed inside it, or it aborted. */
function hostFailure(err: unknown): ScriptFailure {
  if (err instanceof RangeError) return { kind: 'stack' };
  return { kind: 'interrupt', message: err instanceof Error ? err.message.slice(0, 1024) : String(err) };
}
