/**
 * A protobuf enum as the JSON API sees it: names on the wire (input also by number, or by the name
 * without its common prefix as TTS accepts, e.g. `V1_0_3` for `MAC_V1_0_3`).
 */
export interface ProtoEnum<N extends string = string> {
  readonly typeName: string;
  readonly values: Readonly<Record<N, number>>;
  readonly names: readonly N[];
  nameOf(number: number): N | undefined;
  /** Resolves a JSON input value to the canonical name, or undefined if it is not defined. */
  parse(input: unknown): N | undefined;
  /** TTS writes this enum as its number (`thethings.json.enum` `marshal_as_number`). */
  readonly marshalAsNumber: boolean;
  /** The JSON form of a value: its number if `marshalAsNumber`, else its name. */
  canonical(name: N): N | number;
}

export function defineEnum<N extends string>(
  typeName: string,
  values: Record<N, number>,
  prefix = '',
  options: {
    marshalAsNumber?: boolean;
    /** Further accepted input strings (TTS `<Enum>_customvalue`), alias → name. */ aliases?: Readonly<Record<string, N>>;
  } = {},
): ProtoEnum<N> {
  const names = Object.keys(values) as N[];
  const byNumber = new Map<number, N>();
  for (const name of names) if (!byNumber.has(values[name])) byNumber.set(values[name], name);
  const byName = new Map<string, N>(names.map((n) => [n, n]));
  if (prefix) for (const n of names) if (n.startsWith(prefix)) byName.set(n.slice(prefix.length), n);
  for (const [alias, n] of Object.entries(options.aliases ?? {}) as [string, N][]) if (!byName.has(alias)) byName.set(alias, n);
  return {
    typeName,
    values,
    names,
    nameOf: (num) => byNumber.get(num),
    marshalAsNumber: options.marshalAsNumber ?? false,
    canonical: (name) => (options.marshalAsNumber ? values[name] : name),
    parse(input) {
      if (typeof input === 'number' && Number.isInteger(input)) return byNumber.get(input);
      if (typeof input === 'string') return byName.get(input) ?? (/^\d+$/.test(input) ? byNumber.get(Number(input)) : undefined);
      return undefined;
    },
  };
}
