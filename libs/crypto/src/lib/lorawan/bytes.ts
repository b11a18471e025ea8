/** An identifier in the API's big-endian hex (EUI, DevAddr, NetID, nonces) as on-air little-endian bytes. */
export function leBytes(hex: string, length: number, name: string): Buffer {
  const bytes = Buffer.from(hex, 'hex');
  if (bytes.length !== length || hex.length !== length * 2)
    throw new Error(`${name} must be ${length} bytes (${length * 2} hex digits), got ${JSON.stringify(hex)}`);
  return bytes.reverse();
}
