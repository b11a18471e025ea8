import { crc32 } from 'node:zlib';
import { StackError } from '@lorawan/errors';
import type { UpdateInfoRequest } from './update-info';
import { type CupsGateway, parseServerAddress, updateInfoAnswer } from './update-info-answer';

describe('CUPS update-info answer', () => {
  // Two distinct DER SEQUENCEs standing for the LNS's and the CUPS server's trust certificates.
  const lnsTrust = Buffer.from('3003020101', 'hex');
  const cupsTrust = Buffer.from('3003020102', 'hex');
  const settings = { defaultLnsUri: 'wss://lns.example.com:8887', lnsTrust, cupsTrust };
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  const LNS_KEY = 'NNSXS.LNSKEY';
  const CUPS_KEY = 'NNSXS.CUPSKEY';
  /** The credentials blob as the Basics Station specification lays it out for a token: trust, 4 zero bytes, the header line. */
  const blob = (trust: Buffer, key: string) => Buffer.concat([trust, Buffer.alloc(4), Buffer.from(`Authorization: Bearer ${key}\r\n`)]);
  const request = (over: Partial<UpdateInfoRequest> = {}): UpdateInfoRequest => ({
    router: '0011223344556677',
    cupsUri: 'https://cups.example.com:443',
    tcUri: 'wss://lns.example.com:8887',
    cupsCredCrc: 0,
    tcCredCrc: crc32(blob(lnsTrust, LNS_KEY)),
    keys: [],
    ...over,
  });
  const gateway = (over: Partial<CupsGateway> = {}): CupsGateway => ({ ids: { gateway_id: 'gtw' }, lbs_lns_secret: { value: b64(LNS_KEY) }, ...over });
  const codeOf = (v: unknown) => (v instanceof StackError ? `${v.namespace}:${v.errorName}` : 'ok');

  it('answers nothing when the station already has the LNS address and credentials', () => {
    expect(updateInfoAnswer(request(), gateway(), settings)).toEqual({});
  });

  it('sends the new LNS credentials when the CRC of the station differs (a rotated lbs_lns_secret)', () => {
    const answer = updateInfoAnswer(request(), gateway({ lbs_lns_secret: { value: b64('NNSXS.ROTATED') } }), settings);
    expect(answer).toEqual({ tcCred: blob(lnsTrust, 'NNSXS.ROTATED') });
  });

  it('sends the LNS address when it differs: the gateway_server_address first, then the default, normalized to scheme://host:port', () => {
    expect(updateInfoAnswer(request({ tcUri: 'wss://old.example.com:8887' }), gateway({ gateway_server_address: 'new.example.com' }), settings)).toEqual({
      tcUri: 'wss://new.example.com:8887',
    });
    const fresh = updateInfoAnswer(request({ tcUri: '', tcCredCrc: 0 }), gateway(), settings);
    expect(fresh).toEqual({ tcUri: 'wss://lns.example.com:8887', tcCred: blob(lnsTrust, LNS_KEY) });
  });

  it('gives a ws:// LNS no credentials (station sends its token only over TLS)', () => {
    expect(updateInfoAnswer(request({ tcUri: '' }), gateway({ gateway_server_address: 'ws://lns.example.com' }), settings)).toEqual({
      tcUri: 'ws://lns.example.com:1887',
    });
  });

  it('moves the gateway to its target_cups_uri with credentials for it, and rotates the CUPS key on this server', () => {
    const moved = updateInfoAnswer(
      request(),
      gateway({ target_cups_uri: 'https://cups2.example.com:443', target_cups_key: { value: b64(CUPS_KEY) } }),
      settings,
    );
    expect(moved).toEqual({ cupsUri: 'https://cups2.example.com:443', cupsCred: blob(cupsTrust, CUPS_KEY) });
    const rotated = updateInfoAnswer(request(), gateway({ target_cups_key: { value: b64(CUPS_KEY) } }), settings);
    expect(rotated).toEqual({ cupsCred: blob(cupsTrust, CUPS_KEY) });
    const same = updateInfoAnswer(request({ cupsCredCrc: crc32(blob(cupsTrust, CUPS_KEY)) }), gateway({ target_cups_key: { value: b64(CUPS_KEY) } }), settings);
    expect(same).toEqual({});
  });

  it('names what is missing: the target CUPS key, the LNS secret, the trust, an LNS address', () => {
    expect(codeOf(updateInfoAnswer(request(), gateway({ target_cups_uri: 'https://cups2.example.com' }), settings))).toBe(
      'pkg/basicstation/cups:target_cups_credentials_not_found',
    );
    expect(codeOf(updateInfoAnswer(request(), gateway({ lbs_lns_secret: undefined }), settings))).toBe('pkg/basicstation/cups:lns_credentials_not_found');
    expect(codeOf(updateInfoAnswer(request({ tcCredCrc: 0 }), gateway(), { defaultLnsUri: settings.defaultLnsUri }))).toBe(
      'pkg/basicstation/cups:server_trust',
    );
    expect(codeOf(updateInfoAnswer(request({ tcUri: '' }), gateway(), { lnsTrust }))).toBe('pkg/basicstation/cups:lns_address');
    expect(codeOf(updateInfoAnswer(request({ tcUri: '' }), gateway({ gateway_server_address: 'wss://bad host' }), settings))).toBe(
      'pkg/basicstation/cups:invalid_address',
    );
  });

  it('parses server addresses as TTS does (default scheme and ports)', () => {
    expect(parseServerAddress('wss', 'lns.example.com')).toEqual({ scheme: 'wss', host: 'lns.example.com', port: '8887' });
    expect(parseServerAddress('wss', 'ws://10.0.0.1')).toEqual({ scheme: 'ws', host: '10.0.0.1', port: '1887' });
    expect(parseServerAddress('https', 'https://[::1]:8443/')).toEqual({ scheme: 'https', host: '[::1]', port: '8443' });
    expect(parseServerAddress('wss', 'wss://a b')).toBeUndefined();
  });
});
