import { isProductionStation, parseUpstream, type VersionMessage, versionStatus } from './messages';
import { phyPayloadOf, type ReceivedFrame } from './uplink';

/** The radio fields of a received frame as station 2.0.6 writes them (s2e.c s2e_flushRxjobs). */
const RADIO =
  '"RefTime":1764320000.5,"DR":5,"Freq":868100000,"upinfo":{"rctx":0,"xtime":83879543183232277,"gpstime":1479549618123456,"fts":-1,"rssi":-97,"snr":7.25,"rxtime":1764320000.25}';
const UPINFO = { rctx: 0, xtime: 0x012a0000075bcd15n, gpstime: 1479549618123456n, rssi: -97, snr: 7.25, rxtime: 1764320000.25 };

describe('upstream messages (tcproto; station s2e.c / lora.c)', () => {
  it('version', () => {
    expect(
      parseUpstream('{"msgtype":"version","station":"2.0.6(rpi/std)","firmware":null,"package":null,"model":"rpi","protocol":2,"features":"rmtsh gps prod"}'),
    ).toEqual({ type: 'version', station: '2.0.6(rpi/std)', model: 'rpi', protocol: 2, features: ['rmtsh', 'gps', 'prod'] });
    const debug = parseUpstream('{"msgtype":"version","station":"2.0.6(rpi/debug)","protocol":2,"features":"rmtsh gps"}') as VersionMessage;
    expect(debug.features).toEqual(['rmtsh', 'gps']);
    expect(isProductionStation(debug)).toBe(false);
    expect(isProductionStation({ ...debug, features: ['prod'] })).toBe(true);
  });

  it('version → the gateway status TTS makes of it', () => {
    const version = parseUpstream(
      '{"msgtype":"version","station":"2.0.6(rpi/std)","firmware":"1.0.0","package":"pkg","model":"rpi","protocol":2,"features":"rmtsh gps prod"}',
    ) as VersionMessage;
    expect(versionStatus(version, '2025-11-28T09:00:00.000000Z')).toEqual({
      time: '2025-11-28T09:00:00.000000Z',
      versions: { station: '2.0.6(rpi/std)', firmware: '1.0.0', package: 'pkg', platform: 'rpi - Firmware 1.0.0 - Protocol 2' },
      advanced: { model: 'rpi', features: 'rmtsh gps prod' },
      metrics: {},
    });
    const bare = parseUpstream('{"msgtype":"version","station":"2.0.6","firmware":null,"protocol":2}') as VersionMessage;
    expect(versionStatus(bare, '2025-11-28T09:00:00.000000Z')).toMatchObject({
      versions: { station: '2.0.6', platform: ' - Firmware  - Protocol 2' },
      advanced: { features: '' },
    });
    expect(versionStatus(bare, '2025-11-28T09:00:00.000000Z').versions).not.toHaveProperty('firmware');
  });

  // Station's own selftest (selftest_lora.c): these bytes and this JSON are one another.
  it('jreq of station`s selftest frame, rebuilt to the same bytes', () => {
    const bytes = Buffer.from('000123456789ABCDEFF1E3F5E7F9EBFDEFF0F1A0A1A2A3', 'hex');
    const msg = parseUpstream(
      `{"msgtype":"jreq","MHdr":0,"JoinEui":"EF-CD-AB-89-67-45-23-01","DevEui":"EF-FD-EB-F9-E7-F5-E3-F1","DevNonce":61936,"MIC":-1549622880,${RADIO}}`,
    );
    expect(msg).toEqual({
      type: 'jreq',
      mhdr: 0,
      joinEui: 'EFCDAB8967452301',
      devEui: 'EFFDEBF9E7F5E3F1',
      devNonce: 61936,
      mic: -1549622880,
      dataRate: 5,
      frequency: 868100000,
      upInfo: UPINFO,
      refTime: 1764320000.5,
    });
    expect(phyPayloadOf(msg as ReceivedFrame)).toEqual(bytes);
  });

  it('updf of station`s selftest frame (negative DevAddr, FOpts, FPort), rebuilt to the same bytes', () => {
    const bytes = Buffer.from('40ABCDEFFF01F3F4FF202122A0A1A2A3', 'hex');
    const msg = parseUpstream(
      `{"msgtype":"updf","MHdr":64,"DevAddr":-1061461,"FCtrl":1,"FCnt":62707,"FOpts":"FF","FPort":32,"FRMPayload":"2122","MIC":-1549622880,${RADIO}}`,
    );
    expect(msg).toMatchObject({ type: 'updf', mhdr: 64, devAddr: 0xffefcdab, fCtrl: 1, fCnt: 62707, fOpts: Buffer.from('ff', 'hex'), fPort: 32 });
    expect(phyPayloadOf(msg as ReceivedFrame)).toEqual(bytes);
  });

  it('updf without FPort (FPort -1, empty FRMPayload)', () => {
    const msg = parseUpstream(`{"msgtype":"updf","MHdr":128,"DevAddr":1,"FCtrl":0,"FCnt":1,"FOpts":"","FPort":-1,"FRMPayload":"","MIC":0,${RADIO}}`);
    expect(phyPayloadOf(msg as ReceivedFrame)).toEqual(Buffer.from('800100000000010000000000', 'hex'));
  });

  it('propdf carries the whole frame', () => {
    const msg = parseUpstream(`{"msgtype":"propdf","FRMPayload":"E05F5F5F5F5F5F5F5F5F5F5F5F5F5F5F",${RADIO}}`);
    expect(phyPayloadOf(msg as ReceivedFrame)).toEqual(Buffer.from('E05F5F5F5F5F5F5F5F5F5F5F5F5F5F5F', 'hex'));
  });

  it('dntxed (old `seqno` too) and timesync', () => {
    expect(
      parseUpstream(
        '{"msgtype":"dntxed","seqno":7,"diid":7,"DR":5,"Freq":868100000,"DevEui":"00-00-00-00-00-00-00-01","rctx":0,"xtime":83879543184232277,"txtime":1234.5,"gpstime":0}',
      ),
    ).toEqual({ type: 'dntxed', diid: 7, devEui: '0000000000000001', rctx: 0, xtime: 83879543184232277n, txtime: 1234.5 });
    expect(parseUpstream('{"msgtype":"dntxed","seqno":8}')).toEqual({ type: 'dntxed', diid: 8 });
    expect(parseUpstream('{"msgtype":"timesync","txtime":123456789}')).toEqual({ type: 'timesync', txtime: 123456789 });
  });

  it('station`s alternative spellings: JoinEUI/DevEUI and Fcnt', () => {
    expect(parseUpstream(`{"msgtype":"jreq","MHdr":0,"JoinEUI":"01-02-03-04-05-06-07-08","DevEUI":"::1","DevNonce":1,"MIC":1,${RADIO}}`)).toMatchObject({
      joinEui: '0102030405060708',
      devEui: '0000000000000001',
    });
    expect(parseUpstream(`{"msgtype":"updf","MHdr":64,"DevAddr":1,"FCtrl":0,"Fcnt":9,"FOpts":"","FPort":1,"FRMPayload":"00","MIC":0,${RADIO}}`)).toMatchObject({
      fCnt: 9,
    });
  });

  const updf = (over: Record<string, unknown>) =>
    JSON.stringify({
      msgtype: 'updf',
      MHdr: 64,
      DevAddr: 1,
      FCtrl: 0,
      FCnt: 1,
      FOpts: '',
      FPort: 1,
      FRMPayload: '00',
      MIC: 0,
      DR: 5,
      Freq: 868100000,
      ...over,
    }).replace(/}$/, over.upinfo === undefined ? ',"upinfo":{"rctx":0,"xtime":1,"rssi":-90,"snr":5}}' : '}');

  it.each([
    ['{', 'message is not JSON'],
    ['[1]', 'message is not a JSON object'],
    ['{"msgtype":"toString"}', 'message: `msgtype` "toString" is not one this server handles'],
    ['{"msgtype":"timesync","constructor":1}', 'message: `txtime` must be a number in [0, 9007199254740991]'],
    ['{"msgtype":"rmtsh"}', 'message: `msgtype` "rmtsh" is not one this server handles'],
    ['{"msgtype":5}', 'message: `msgtype` must be a string of at most 32 characters'],
    ['{"msgtype":"version","protocol":2}', 'message: `station` must be a string of at most 256 characters'],
    ['{"msgtype":"version","station":"x","protocol":"2"}', 'message: `protocol` must be an integer in [0, 255]'],
    [updf({ MHdr: 0 }), 'message: `MHdr` must be a data uplink of LoRaWAN R1'],
    [updf({ MHdr: 0x41 }), 'message: `MHdr` must be a data uplink of LoRaWAN R1'],
    [updf({ MHdr: 256 }), 'message: `MHdr` must be an integer in [0, 255]'],
    [updf({ DevAddr: 2 ** 32 }), 'message: `DevAddr` must be an integer in [-2147483648, 4294967295]'],
    [updf({ FCnt: 65536 }), 'message: `FCnt` must be an integer in [0, 65535]'],
    [updf({ FOpts: '0102' }), 'message: `FOpts` holds 2 bytes, `FCtrl` says 0'],
    [updf({ FOpts: 'xx' }), 'message: `FOpts` must be hex of at most 15 bytes'],
    [updf({ FPort: -1 }), 'message: `FRMPayload` must be empty without `FPort`'],
    [updf({ FPort: 256 }), 'message: `FPort` must be an integer in [-1, 255]'],
    [updf({ FRMPayload: '00'.repeat(243) }), 'message: the frame would be 256 bytes, more than 255'],
    [updf({ MIC: 2 ** 32 }), 'message: `MIC` must be an integer in [-2147483648, 4294967295]'],
    [updf({ DR: 16 }), 'message: `DR` must be an integer in [0, 15]'],
    [updf({ Freq: 868.1 }), 'message: `Freq` must be an integer in [1, 10000000000]'],
    [updf({ upinfo: 'x' }), 'message: `upinfo` must be an object'],
    [updf({ upinfo: { rctx: 0, xtime: 0, rssi: -90, snr: 5 } }), 'message: `xtime` must be an integer in [1, 9223372036854775807]'],
    [updf({ upinfo: { rctx: 0, xtime: '1', rssi: -90, snr: 5 } }), 'message: `xtime` must be an integer in [1, 9223372036854775807]'],
    [updf({ upinfo: { rctx: 256, xtime: 1, rssi: -90, snr: 5 } }), 'message: `rctx` must be an integer in [0, 255]'],
    [updf({ upinfo: { rctx: 0, xtime: 1, rssi: 'x', snr: 5 } }), 'message: `rssi` must be a number in [-1000, 1000]'],
    [`{"msgtype":"jreq","MHdr":0,"JoinEui":"x","DevEui":"::1","DevNonce":1,"MIC":1,${RADIO}}`, 'message: `JoinEui` must be an EUI'],
    [`{"msgtype":"jreq","MHdr":64,"JoinEui":"::1","DevEui":"::1","DevNonce":1,"MIC":1,${RADIO}}`, 'message: `MHdr` must be a join-request of LoRaWAN R1'],
    [`{"msgtype":"jreq","MHdr":0,"JoinEui":"::1","DevEui":"::1","DevNonce":65536,"MIC":1,${RADIO}}`, 'message: `DevNonce` must be an integer in [0, 65535]'],
    [`{"msgtype":"propdf","FRMPayload":"40",${RADIO}}`, 'message: `FRMPayload` must be a proprietary frame (MType 111)'],
    ['{"msgtype":"dntxed"}', 'message: `diid` must be an integer in [0, 9007199254740991]'],
    ['{"msgtype":"dntxed","diid":1,"DevEui":7.5}', 'message: `DevEui` must be an EUI'],
    ['{"msgtype":"timesync","txtime":-1}', 'message: `txtime` must be a number in [0, 9007199254740991]'],
  ])('refuses %s', (text, error) => expect(parseUpstream(text)).toEqual({ error }));

  it('refuses oversized text unread', () => {
    expect(parseUpstream(`{"msgtype":"version","station":"${'x'.repeat(20000)}"}`)).toEqual({ error: 'message larger than 16384 characters' });
  });

  it('never throws: every field of every message replaced by every wrong kind of value, every truncation', () => {
    const valid = [
      `{"msgtype":"version","station":"2.0.6","model":"rpi","protocol":2,"features":"gps"}`,
      `{"msgtype":"jreq","MHdr":0,"JoinEui":"EF-CD-AB-89-67-45-23-01","DevEui":"EF-FD-EB-F9-E7-F5-E3-F1","DevNonce":61936,"MIC":-1549622880,${RADIO}}`,
      `{"msgtype":"updf","MHdr":64,"DevAddr":-1061461,"FCtrl":1,"FCnt":62707,"FOpts":"FF","FPort":32,"FRMPayload":"2122","MIC":-1549622880,${RADIO}}`,
      `{"msgtype":"propdf","FRMPayload":"E05F",${RADIO}}`,
      '{"msgtype":"dntxed","diid":7,"DevEui":"00-00-00-00-00-00-00-01","rctx":0,"xtime":83879543184232277,"txtime":1234.5,"gpstime":0}',
      '{"msgtype":"timesync","txtime":123456789}',
    ];
    const wrong = [
      'null',
      'true',
      '"x"',
      '""',
      '-1',
      '1.5',
      '1e400',
      '-1e400',
      '18446744073709551616',
      '-9223372036854775809',
      '{}',
      '[]',
      '[1,2]',
      `"${'f'.repeat(600)}"`,
    ];
    let checked = 0;
    for (const text of valid) {
      const keys = [...text.matchAll(/"([A-Za-z]+)":/g)].map((m) => m[1]);
      for (const key of keys)
        for (const value of wrong) {
          const mutated = text.replace(new RegExp(`"${key}":(\\{[^}]*\\}|"[^"]*"|[^,}]+)`), `"${key}":${value}`);
          const result = parseUpstream(mutated);
          expect(typeof result).toBe('object');
          if ('type' in result && 'upInfo' in result) expect(() => phyPayloadOf(result)).not.toThrow();
          checked++;
        }
      for (let i = 0; i < text.length; i++) expect('error' in (parseUpstream(text.slice(0, i)) as object)).toBe(true);
    }
    expect(checked).toBeGreaterThan(500);
  });
});
