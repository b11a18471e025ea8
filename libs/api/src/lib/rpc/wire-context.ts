import type { CallerIdentity, RpcContext } from './context';
import { type Right, RIGHT_NUMBERS } from './rights';

/**
 * The caller crosses the transport with its rights as bitmasks instead of name lists: an admin's
 * rights are some 120 names (3.5 KB of JSON, most of every request's bytes, encoded in the gateway
 * and parsed in the component). Bit n stands for the right numbered n in TTS's `Right` enum, whose
 * numbers never change, so a gateway and a component of different versions agree; a bit a
 * component does not know stands for no right it checks and is dropped.
 */
export type WireRights = string;

const BY_NUMBER: Array<Right | undefined> = [];
for (const [name, n] of Object.entries(RIGHT_NUMBERS)) BY_NUMBER[n] = name as Right;

/** Hex digits of the mask: 128 rights at most. */
const MAX_DIGITS = 32;
const HEX = '0123456789abcdef';

/** Rights → lowercase hex bitmask, most significant digit first, no leading zeros (`''` for none). */
export function packRights(rights: readonly Right[]): WireRights {
  const nibbles = new Array<number>(MAX_DIGITS).fill(0);
  for (const right of rights) {
    const n = RIGHT_NUMBERS[right];
    if (n !== undefined && n < MAX_DIGITS * 4) nibbles[n >> 2] |= 1 << (n & 3);
  }
  let top = MAX_DIGITS - 1;
  while (top >= 0 && nibbles[top] === 0) top--;
  let out = '';
  for (let i = top; i >= 0; i--) out += HEX[nibbles[i]];
  return out;
}

/** Masks seen recently and their rights (a process sees few distinct callers): decoded once. */
const UNPACKED = new Map<string, readonly Right[]>();
const UNPACKED_MAX = 1024;

/** Hex bitmask (up to 128 rights) → rights in enum-number order; anything else is no rights. The list is shared: read-only. */
export function unpackRights(packed: WireRights): Right[] {
  let rights = UNPACKED.get(packed);
  if (!rights) {
    rights = decodeMask(packed);
    if (UNPACKED.size >= UNPACKED_MAX) UNPACKED.clear();
    UNPACKED.set(packed, rights);
  }
  return rights as Right[];
}

function decodeMask(packed: string): readonly Right[] {
  if (typeof packed !== 'string' || packed.length > MAX_DIGITS) return [];
  const out: Right[] = [];
  for (let i = packed.length - 1, nibble = 0; i >= 0; i--, nibble++) {
    const digit = HEX.indexOf(packed[i]);
    if (digit < 0) return [];
    for (let bit = 0; bit < 4; bit++) {
      const right = digit & (1 << bit) ? BY_NUMBER[nibble * 4 + bit] : undefined;
      if (right) out.push(right);
    }
  }
  return Object.freeze(out);
}

type WireCaller = Omit<CallerIdentity, 'rights' | 'key_rights' | 'entity_rights'> & {
  rights: WireRights;
  key_rights: WireRights;
  entity_rights?: Array<{ entity: NonNullable<CallerIdentity['entity']>; rights: WireRights }>;
};

const packed = new WeakMap<CallerIdentity, WireCaller>();

/** The caller in its wire form (kept per caller object: the gateway reuses a resolved caller for many requests). */
export function packCaller(caller: CallerIdentity): WireCaller {
  const known = packed.get(caller);
  if (known) return known;
  const { entity_rights, ...rest } = caller;
  const wire: WireCaller = {
    ...rest,
    rights: packRights(caller.rights),
    key_rights: packRights(caller.key_rights),
    ...(entity_rights ? { entity_rights: entity_rights.map((e) => ({ entity: e.entity, rights: packRights(e.rights) })) } : {}),
  };
  packed.set(caller, wire);
  return wire;
}

/** A request context as sent: the caller's rights packed. */
export function toWireContext(ctx: RpcContext): RpcContext {
  // Boundary (the wire): the caller travels packed (WireCaller) in the slot the context types as CallerIdentity.
  return ctx.caller ? { ...ctx, caller: packCaller(ctx.caller) as unknown as CallerIdentity } : ctx;
}

/**
 * A request context as received: rights unpacked where they were packed (a caller given with
 * lists, as tests and older senders do, is taken as it is).
 */
export function fromWireContext(ctx: RpcContext): RpcContext {
  // Boundary (the wire): what arrived in the caller slot may be packed (WireCaller) or plain.
  const caller = ctx?.caller as unknown as Partial<WireCaller> | undefined;
  if (!caller || typeof caller.rights !== 'string') return ctx;
  return {
    ...ctx,
    caller: {
      ...(caller as object),
      rights: unpackRights(caller.rights),
      key_rights: typeof caller.key_rights === 'string' ? unpackRights(caller.key_rights) : [],
      ...(Array.isArray(caller.entity_rights)
        ? { entity_rights: caller.entity_rights.map((e) => ({ entity: e.entity, rights: typeof e.rights === 'string' ? unpackRights(e.rights) : [] })) }
        : {}),
    } as CallerIdentity,
  };
}
