/**
 * EUIs as LoRa Basics Station writes them (its glossary; `rt_readEui`, `uj_eui`; TTS `id6`): eight
 * hex bytes separated by `-` or `:` (`EF-CD-AB-89-67-45-23-01`, what station sends in `jreq`), 16
 * plain hex digits, an id6 (four groups of up to four hex digits, `::` standing for zero groups:
 * `b827:ebff:fe61:51d9`, `::1`, `1::`), or an integer. Read into the stack's form: 16 upper-case
 * hex digits.
 */

const EUI_MAX = (1n << 64n) - 1n;
const BYTES = /^[0-9a-fA-F]{2}([-:])[0-9a-fA-F]{2}(?:\1[0-9a-fA-F]{2}){6}$/;
const PLAIN = /^[0-9a-fA-F]{16}$/;
const GROUP = /^[0-9a-fA-F]{1,4}$/;

/** The EUI a station field holds (16 upper-case hex digits), or undefined for anything else. */
export function readEui(value: unknown): string | undefined {
  if (typeof value === 'bigint' || typeof value === 'number') {
    const n = typeof value === 'number' ? (Number.isSafeInteger(value) ? BigInt(value) : -1n) : value;
    return n >= 0n && n <= EUI_MAX ? n.toString(16).toUpperCase().padStart(16, '0') : undefined;
  }
  if (typeof value !== 'string') return undefined;
  if (BYTES.test(value) || PLAIN.test(value)) return value.replace(/[-:]/g, '').toUpperCase();
  return readId6(value);
}

/** An id6 (2 or 3 colons, at most one `::`) as 16 hex digits. */
function readId6(value: string): string | undefined {
  const colons = value.split(':').length - 1;
  if (colons < 2 || colons > 3) return undefined;
  const halves = value.split('::');
  let groups: string[];
  if (halves.length === 1) {
    groups = value.split(':');
  } else if (halves.length === 2) {
    const left = halves[0] === '' ? [] : halves[0].split(':');
    const right = halves[1] === '' ? [] : halves[1].split(':');
    if (left.length + right.length > 3) return undefined;
    groups = [...left, ...Array<string>(4 - left.length - right.length).fill('0'), ...right];
  } else {
    return undefined;
  }
  if (groups.length !== 4 || !groups.every((g) => GROUP.test(g))) return undefined;
  return groups
    .map((g) => g.padStart(4, '0'))
    .join('')
    .toUpperCase();
}

/** An EUI (16 hex digits) as an id6, shortest form (TTS and station print routers so): `b827:ebff:fe61:51d9`, `::1`. */
export function formatId6(eui: string): string {
  const groups = (eui.match(/.{4}/g) ?? []).map((g) => parseInt(g, 16).toString(16));
  // The longest run of two or more zero groups (the first of equals) becomes `::`, as in IPv6
  // (RFC 5952); a lone zero group stays, so the id6 never has more than three colons.
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 4;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 4 && groups[j] === '0') j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j;
  }
  if (best.length < 2) return groups.join(':');
  if (best.length === 4) return '::0';
  return `${groups.slice(0, best.start).join(':')}::${groups.slice(best.start + best.length).join(':')}`;
}

/** An EUI (16 hex digits) as station's dashed bytes, what `dnmsg`'s `DevEui` and router_config's filters carry: `EF-CD-AB-89-67-45-23-01`. */
export function formatDashedEui(eui: string): string {
  return (eui.match(/.{2}/g) ?? []).join('-');
}
