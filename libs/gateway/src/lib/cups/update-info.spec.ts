import { crc32 } from 'node:zlib';
import { credentialsCrc, encodeUpdateInfoResponse, parseUpdateInfoRequest, tokenCredentials } from './update-info';

describe('CUPS update-info (LoRa Basics Station)', () => {
  // A DER SEQUENCE (what station's `ASN1_ISSEQ` looks for first in a credentials segment).
  const trust = Buffer.from('30030201ff', 'hex');

  it('reads the request station posts (router as an id6), and refuses what is not one', () => {
    const body = {
      router: 'b827:ebff:fe61:51d9',
      cupsUri: 'https://cups.example.com:443',
      tcUri: 'wss://lns.example.com:8887',
      cupsCredCrc: 0xdeadbeef,
      tcCredCrc: 1,
      station: '2.0.6(rpi/std) 2022-01-01 00:00:00',
      model: 'rpi',
      package: '1.0.0',
      keys: [0x12345678],
    };
    expect(parseUpdateInfoRequest(body)).toEqual({ ...body, router: 'B827EBFFFE6151D9' });
    expect(parseUpdateInfoRequest({ router: '::1' })).toEqual({ router: '0000000000000001', cupsUri: '', tcUri: '', cupsCredCrc: 0, tcCredCrc: 0, keys: [] });
    expect(parseUpdateInfoRequest([])).toEqual({ error: 'the body is not a JSON object' });
    expect(parseUpdateInfoRequest({ cupsUri: '' })).toEqual({ error: 'missing or invalid `router`' });
    expect(parseUpdateInfoRequest({ ...body, tcCredCrc: -1 })).toEqual({ error: '`tcCredCrc` is not a 32-bit unsigned integer' });
    expect(parseUpdateInfoRequest({ ...body, tcCredCrc: 2 ** 32 })).toEqual({ error: '`tcCredCrc` is not a 32-bit unsigned integer' });
    expect(parseUpdateInfoRequest({ ...body, tcUri: 7 })).toEqual({ error: '`tcUri` is not a string' });
    expect(parseUpdateInfoRequest({ ...body, keys: ['a'] })).toEqual({ error: '`keys` is not a list of 32-bit unsigned integers' });
  });

  it('token credentials: the trust, four zero bytes (no client certificate), the Authorization line; their CRC is the one station computes over its three files', () => {
    const cred = tokenCredentials(trust, 'Bearer NNSXS.KEY\r\n');
    expect(cred).toEqual(Buffer.concat([trust, Buffer.from([0, 0, 0, 0]), Buffer.from('Authorization: Bearer NNSXS.KEY\r\n')]));
    // CRC-32 (IEEE): its check value.
    expect(credentialsCrc(Buffer.from('123456789'))).toBe(0xcbf43926);
    // Station (sys_crcCred): .trust, then the empty .crt as four zero bytes, then .key, chained.
    const files = [trust, Buffer.alloc(0), Buffer.from('Authorization: Bearer NNSXS.KEY\r\n')];
    const stations = files.reduce((crc, file) => crc32(file.length > 0 ? file : Buffer.alloc(4), crc), 0);
    expect(credentialsCrc(cred)).toBe(stations);
  });

  it('encodes the answer as the specification lays it out, lengths little-endian', () => {
    const tcCred = Buffer.from('0102', 'hex');
    const encoded = encodeUpdateInfoResponse({ tcUri: 'wss://h:1', tcCred });
    // prettier-ignore
    const expected = Buffer.from([
      0x00,                                                  // cupsUriLen
      0x09, ...Buffer.from('wss://h:1'),                     // tcUriLen, tcUri
      0x00, 0x00,                                            // cupsCredLen
      0x02, 0x00, 0x01, 0x02,                                // tcCredLen, tcCred
      0x00, 0x00, 0x00, 0x00,                                // sigLen: no signature, no key CRC
      0x00, 0x00, 0x00, 0x00,                                // updLen
    ]);
    expect(encoded).toEqual(expected);
    expect(encodeUpdateInfoResponse({})).toEqual(Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
  });

  it('counts the key CRC in sigLen, as station reads the signature segment', () => {
    const encoded = encodeUpdateInfoResponse({
      cupsUri: 'https://c',
      cupsCred: Buffer.alloc(300, 7),
      signature: { keyCrc: 0x11223344, value: Buffer.from('abcd', 'hex') },
      updateData: Buffer.from('ff', 'hex'),
    });
    // prettier-ignore
    const expected = Buffer.concat([
      Buffer.from([0x09]), Buffer.from('https://c'),         // cupsUriLen, cupsUri
      Buffer.from([0x00]),                                   // tcUriLen
      Buffer.from([0x2c, 0x01]), Buffer.alloc(300, 7),       // cupsCredLen 300, cupsCred
      Buffer.from([0x00, 0x00]),                             // tcCredLen
      Buffer.from([0x06, 0x00, 0x00, 0x00]),                 // sigLen: 4 (key CRC) + 2
      Buffer.from([0x44, 0x33, 0x22, 0x11, 0xab, 0xcd]),     // key CRC, signature
      Buffer.from([0x01, 0x00, 0x00, 0x00, 0xff]),           // updLen, update
    ]);
    expect(encoded).toEqual(expected);
  });

  it('refuses a segment longer than its length field', () => {
    expect(encodeUpdateInfoResponse({ tcUri: 'x'.repeat(256) })).toEqual({ error: 'tcUri is longer than 255 bytes' });
    expect(encodeUpdateInfoResponse({ tcCred: Buffer.alloc(65536) })).toEqual({ error: 'tcCred is longer than 65535 bytes' });
    expect(encodeUpdateInfoResponse({ signature: { keyCrc: 1, value: Buffer.alloc(129) } })).toEqual({ error: 'the signature is not 1 to 128 bytes long' });
  });
});
