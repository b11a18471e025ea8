/** A JSON object: what a message, a map or a Struct is on the wire. */
export type JsonObject = Record<string, unknown>;

/** Whether `v` is a JSON object (not null, not a list). */
export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
