/**
 * The JSON text of a device's stored fields (`end_devices.fields`), as `JSON.stringify` writes it.
 *
 * `SharedTextEncoder` reuses the text of objects it encoded before: a data-plane write builds the
 * new document from the one it read, replacing only what changed, so most of a device's MAC state
 * (its current and desired parameters, the earlier recent uplinks) is the same objects from one
 * uplink's write to the next. The text of an object is kept (weakly) once written, and that
 * object is never written differently: the registry's documents are shared, never changed in
 * place (`DeviceRegistry.modify`'s `read`; frozen under NODE_ENV=test). Only the upper levels
 * of a document are walked (`WALKED_DEPTH`); below them each object is one native
 * `JSON.stringify`, kept as one text.
 */
export interface DocumentEncoder {
  encode(fields: Record<string, unknown>): string;
}

/** Plain `JSON.stringify`. */
export const PLAIN_ENCODER: DocumentEncoder = { encode: (fields) => JSON.stringify(fields) };

/** Levels walked key by key (the document, its fields, theirs); deeper objects are encoded whole. */
const WALKED_DEPTH = 3;

export class SharedTextEncoder implements DocumentEncoder {
  private readonly texts = new WeakMap<object, string>();

  /** `check` (tests): every text is compared with `JSON.stringify`'s, so a document changed in place after a write fails loudly. */
  constructor(private readonly check = false) {}

  encode(fields: Record<string, unknown>): string {
    const text = this.value(fields, 0) as string;
    if (this.check) {
      const plain = JSON.stringify(fields);
      if (text !== plain) throw new Error('SharedTextEncoder: a document written before was changed in place since');
    }
    return text;
  }

  /** The JSON text of `value`, undefined where `JSON.stringify` leaves a property out. */
  private value(value: unknown, depth: number): string | undefined {
    if (typeof value !== 'object' || value === null) return JSON.stringify(value);
    const known = this.texts.get(value);
    if (known !== undefined) return known;
    // Objects with their own JSON form (dates, buffers) are left to JSON.stringify, and not kept.
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value);
    let text: string;
    if (depth >= WALKED_DEPTH) text = JSON.stringify(value);
    else if (Array.isArray(value)) text = `[${value.map((item) => this.value(item, depth + 1) ?? 'null').join(',')}]`;
    else {
      const parts: string[] = [];
      for (const key of Object.keys(value)) {
        const item = this.value((value as Record<string, unknown>)[key], depth + 1);
        if (item !== undefined) parts.push(`${JSON.stringify(key)}:${item}`);
      }
      text = `{${parts.join(',')}}`;
    }
    if (depth > 0) this.texts.set(value, text);
    return text;
  }
}
