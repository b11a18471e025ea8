import {
  newQuickJSWASMModuleFromVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
  shouldInterruptAfterDeadline,
} from 'quickjs-emscripten';
import type { StackError } from '@lorawan/errors';
import { ErrScriptMemory, ErrScriptRuntime, ErrScriptTimeout } from './formatter.errors';

export interface SandboxLimits {
  /** Wall-clock limit of one run (TTS: 100 ms). */
  timeoutMs: number;
  /** Heap limit of one run's runtime. */
  memoryBytes: number;
  /** Interpreter stack limit. */
  stackBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { timeoutMs: 100, memoryBytes: 16 * 1024 * 1024, stackBytes: 512 * 1024 };

let quickJs: Promise<QuickJSWASMModule> | undefined;

/**
 * The release build of QuickJS (sync variant), loaded once per process. The variant is built from
 * static imports rather than the package's own `import()` so that it also loads under jest's CommonJS.
 */
const RELEASE_SYNC: QuickJSSyncVariant = {
  type: 'sync',
  // The package's subpath exports are invisible to `moduleResolution: node`: loaded with require.
  importFFI: () => Promise.resolve((require('@jitl/quickjs-wasmfile-release-sync/ffi') as { QuickJSFFI: never }).QuickJSFFI),
  importModuleLoader: () => Promise.resolve(require('@jitl/quickjs-wasmfile-release-sync/emscripten-module') as never),
};

function module(): Promise<QuickJSWASMModule> {
  return (quickJs ??= newQuickJSWASMModuleFromVariant(RELEASE_SYNC));
}

/**
 * Runs untrusted payload-formatter scripts in QuickJS compiled to WebAssembly
 * (`quickjs-emscripten`): the script sees only the ECMAScript built-ins (no `require`, `process`,
 * timers, I/O or host objects; data crosses the boundary as JSON only). Each run gets its own
 * runtime with a memory limit, a stack limit and an interrupt handler that stops it at its deadline,
 * so an endless loop or a memory bomb fails that run alone.
 */
export class JavaScriptSandbox {
  constructor(private readonly limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS) {}

  /**
   * Evaluates `script`, then `entry` (an expression over the global `input`, parsed from
   * `inputJson`), and returns the entry's value as parsed JSON.
   */
  async run(script: string, inputJson: string, entry: string): Promise<unknown> {
    const runtime = (await module()).newRuntime();
    try {
      runtime.setMemoryLimit(this.limits.memoryBytes);
      runtime.setMaxStackSize(this.limits.stackBytes);
      const deadline = Date.now() + this.limits.timeoutMs;
      runtime.setInterruptHandler(shouldInterruptAfterDeadline(deadline));
      const vm = runtime.newContext();
      try {
        const scriptResult = vm.evalCode(script, 'formatter.js');
        if (scriptResult.error) throw this.failure(vm, scriptResult.error, deadline);
        scriptResult.value.dispose();
        const runner = `(function () { var input = JSON.parse(${JSON.stringify(inputJson)}); if (typeof input.recvTime === 'string') input.recvTime = new Date(input.recvTime); var out = ${entry}; return out === undefined ? undefined : JSON.stringify(out); })()`;
        const result = vm.evalCode(runner, 'entry.js');
        if (result.error) throw this.failure(vm, result.error, deadline);
        const json = vm.dump(result.value) as unknown;
        result.value.dispose();
        return typeof json === 'string' ? JSON.parse(json) : undefined;
      } finally {
        vm.dispose();
      }
    } finally {
      runtime.dispose();
    }
  }

  /** The script's exception as a typed error (the handle is released here). */
  private failure(vm: QuickJSContext, handle: QuickJSHandle, deadline: number): StackError {
    let error: unknown;
    try {
      error = vm.dump(handle);
    } finally {
      handle.dispose();
    }
    const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as { name?: string; message?: string };
    if (e.name === 'InternalError' && e.message === 'interrupted' && Date.now() >= deadline) return ErrScriptTimeout.with();
    if (e.name === 'InternalError' && e.message === 'out of memory') return ErrScriptMemory.with();
    return ErrScriptRuntime.with({ message: `${e.name ?? 'Error'}: ${e.message ?? ''}`.slice(0, 1024) });
  }
}
