/** Minimal typings of autocannon's programmatic API (the package ships none). */
declare module 'autocannon' {
  namespace autocannon {
    interface AutocannonRequest {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      setupRequest?: (req: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest | undefined;
      onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
    }

    interface AutocannonOptions {
      url: string;
      connections?: number;
      pipelining?: number;
      duration?: number;
      amount?: number;
      timeout?: number;
      headers?: Record<string, string>;
      method?: string;
      body?: string;
      requests?: AutocannonRequest[];
      workers?: number;
    }

    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p97_5: number;
      p99: number;
      [k: string]: number;
    }

    interface AutocannonResult {
      duration: number;
      latency: Histogram;
      requests: Histogram;
      throughput: Histogram;
      errors: number;
      timeouts: number;
      non2xx: number;
      resets: number;
      '2xx': number;
      statusCodeStats: Record<string, { count: number }>;
    }

    /** The running instance: a promise of the result, and events ('response': every response with its latency in ms). */
    interface AutocannonInstance extends PromiseLike<AutocannonResult> {
      on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): void;
      on(event: string, listener: (...args: unknown[]) => void): void;
    }
  }

  function autocannon(opts: autocannon.AutocannonOptions): autocannon.AutocannonInstance;
  export = autocannon;
}
