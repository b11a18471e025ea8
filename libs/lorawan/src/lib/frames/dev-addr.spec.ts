import { devAddrHasPrefix, devAddrPrefixOf, formatDevAddrPrefix, parseDevAddrPrefix, randomDevAddr } from './dev-addr';

describe('DevAddr from NetID (dataplane-notes §3.4)', () => {
  it.each([
    ['000013', '26000000/7'], // TTN: type 0, NwkID 0x13
    ['000000', '00000000/7'], // TTS default
    ['60002D', 'E05A0000/15'], // type 3: 1110, then the 11 low bits of the NetID (0x02D)
  ])('NetID %s → %s', (netId, prefix) => {
    expect(formatDevAddrPrefix(devAddrPrefixOf(netId))).toBe(prefix);
  });

  it('gives each NetID type its prefix and NwkID width (1+6, 2+6, 3+9, 4+11, 5+12, 6+13, 7+15, 8+17 bits)', () => {
    const lengths = [0, 1, 2, 3, 4, 5, 6, 7].map((type) => devAddrPrefixOf(((type << 21) >>> 0).toString(16).padStart(6, '0')));
    expect(lengths.map((p) => p.length)).toEqual([7, 8, 12, 15, 17, 19, 22, 25]);
    // The type prefix: `type` ones then a zero.
    expect(lengths.map((p) => p.addr >>> 24)).toEqual([0x00, 0x80, 0xc0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe]);
  });

  it('parses, checks and formats prefixes', () => {
    expect(parseDevAddrPrefix('26000000/7')).toEqual({ addr: 0x26000000, length: 7 });
    expect(parseDevAddrPrefix('00000000/0')).toEqual({ addr: 0, length: 0 });
    for (const bad of ['26000000', '27000000/7', '2600000/7', '26000000/33', 'zz000000/7']) expect(parseDevAddrPrefix(bad)).toBeUndefined();
    expect(devAddrHasPrefix('27FFFFFF', { addr: 0x26000000, length: 7 })).toBe(true);
    expect(devAddrHasPrefix('28000000', { addr: 0x26000000, length: 7 })).toBe(false);
  });

  it('allocates random addresses inside the prefixes, in proportion to their sizes, avoiding the current one', () => {
    const ttn = devAddrPrefixOf('000013');
    const small = { addr: 0x01000000, length: 24 };
    const seen = new Set<string>();
    let inSmall = 0;
    for (let i = 0; i < 2000; i++) {
      const a = randomDevAddr([ttn, small]);
      expect(devAddrHasPrefix(a, ttn) || devAddrHasPrefix(a, small)).toBe(true);
      if (devAddrHasPrefix(a, small)) inSmall++;
      seen.add(a);
    }
    expect(seen.size).toBeGreaterThan(1990);
    expect(inSmall).toBeLessThan(5); // 256 of 2^25 + 256 addresses
    // A /31 has two addresses: the other one is chosen unless all 5 attempts draw the avoided one (1 in 32).
    const pair = { addr: 0x26000000, length: 31 };
    let avoided = 0;
    for (let i = 0; i < 200; i++) if (randomDevAddr([pair], '26000000') === '26000001') avoided++;
    expect(avoided).toBeGreaterThan(170);
    expect(() => randomDevAddr([])).toThrow('no DevAddr prefix');
    expect(devAddrHasPrefix(randomDevAddr([{ addr: 0, length: 0 }]), { addr: 0, length: 0 })).toBe(true);
  });
});
