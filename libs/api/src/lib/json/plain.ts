/**
 * Decoded request messages are class instances: this is their plain JSON data (what is stored,
 * compared and sent on). `undefined` stays `undefined`.
 */
export function plainJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
