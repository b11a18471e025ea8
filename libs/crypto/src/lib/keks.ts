/** KEK labels as TTS accepts them in `kek_label` fields (at most 2048 characters, as the seed's KeyEnvelope). */
export const KEK_LABEL_PATTERN = /^[A-Za-z0-9_.:-]{1,2048}$/;

/** AES-128, -192 and -256 KEKs, as hex. */
const KEK_HEX_LENGTHS = [32, 48, 64];

/**
 * Parses the `KEKS` setting, `label1=<hex>,label2=<hex>`, into label → key. Unset or blank means no
 * KEKs (keys are then stored in the clear). Error messages name the entry by position only: they
 * never echo the value, not even the label, which could be a key when the two are swapped.
 */
export function parseKeks(value: string | undefined): Map<string, Buffer> {
  const keks = new Map<string, Buffer>();
  if (value === undefined || value.trim() === '') return keks;
  value.split(',').forEach((raw, index) => {
    const entry = raw.trim();
    const eq = entry.indexOf('=');
    if (eq < 0) throw new Error(`KEKS entry ${index + 1} is not of the form label=<hex key>`);
    const label = entry.slice(0, eq).trim();
    const hex = entry.slice(eq + 1).trim();
    if (!KEK_LABEL_PATTERN.test(label)) throw new Error(`KEKS entry ${index + 1}: label must match ${KEK_LABEL_PATTERN.source}`);
    if (keks.has(label)) throw new Error(`KEKS entry ${index + 1}: its label is already used by an earlier entry`);
    const isHex = /^[0-9A-Fa-f]*$/.test(hex);
    if (!isHex || !KEK_HEX_LENGTHS.includes(hex.length)) {
      const got = `${hex.length} characters${isHex ? '' : ' with non-hex characters'}`;
      throw new Error(`KEKS entry ${index + 1}: key must be ${KEK_HEX_LENGTHS.join(', ')} hex characters (AES-128/192/256), got ${got}`);
    }
    keks.set(label, Buffer.from(hex, 'hex'));
  });
  return keks;
}
