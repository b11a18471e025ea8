/**
 * What `promise` resolves to, or `fallback` if it rejects or `ms` pass first: a bounded wait on
 * something that may hang while a broker or a database is away (a drain, a flush, a health check).
 */
export function settleWithin<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  return new Promise<T>((resolve) => {
    const timer = setTimeout(() => resolve(fallback), ms);
    const settle = (value: T) => {
      clearTimeout(timer);
      resolve(value);
    };
    promise.then(settle, () => settle(fallback));
  });
}
