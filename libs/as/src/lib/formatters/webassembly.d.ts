/**
 * The part of the WebAssembly JavaScript API the formatter workers use, as Node provides it
 * globally: TypeScript declares WebAssembly only in its DOM libraries, which this project leaves out.
 */
declare namespace WebAssembly {
  /** A compiled module: opaque, and cloneable to worker threads. */
  class Module {
    private readonly brand: 'WebAssembly.Module';
  }
  class Memory {
    /** Sizes in 64 KiB pages; the memory cannot grow past `maximum`. */
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
  function compile(bytes: Uint8Array): Promise<Module>;
}
