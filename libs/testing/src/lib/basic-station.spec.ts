import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { checkRouterConfig, dnmsgProblem, SimulatedBasicStation, stationFrameFields } from './basic-station';
import { SimulatedOtaaDevice } from './otaa-device';

/**
 * The test station against a small LNS written here from the specification: it answers
 * `/router-info`, sends a router_config on `version`, records what the station sends (int64
 * fields read from the text, exactly), and sends what a test tells it to.
 */
class TinyLns {
  readonly server: WebSocketServer;
  readonly messages: Array<{ text: string; json: Record<string, unknown> }> = [];
  readonly upgrades: IncomingMessage[] = [];
  socket?: WebSocket;
  pongs = 0;

  constructor(readonly routerConfig: string) {
    this.server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    this.server.on('connection', (ws, req) => {
      this.upgrades.push(req);
      if (req.url === '/router-info') {
        ws.on('message', (data) => {
          const { router } = JSON.parse(String(data)) as { router: unknown };
          ws.send(
            router === 'b827:ebff:fe61:51d9'
              ? JSON.stringify({ router, muxs: 'muxs-::0', uri: `ws://localhost:${this.port}/traffic/eui-B827EBFFFE6151D9` })
              : JSON.stringify({ router, error: 'unknown router' }),
          );
        });
        return;
      }
      this.socket = ws;
      ws.on('pong', () => this.pongs++);
      ws.on('message', (data) => {
        const text = String(data);
        const json = JSON.parse(text) as Record<string, unknown>;
        this.messages.push({ text, json });
        if (json.msgtype === 'version') ws.send(this.routerConfig);
        if (json.msgtype === 'timesync') ws.send(`{"msgtype":"timesync","txtime":${json.txtime as number},"gpstime":1479549618123456,"MuxTime":1764320000.5}`);
      });
    });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The next message the station sends of a type. */
  async next(msgtype: string, from = 0): Promise<{ text: string; json: Record<string, unknown> }> {
    for (let i = 0; i < 200; i++) {
      const found = this.messages.slice(from).find((m) => m.json.msgtype === msgtype);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no ${msgtype}`);
  }

  close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** An EU868 router_config as the specification describes it, with 64-bit JoinEUI bounds. */
const ROUTER_CONFIG = `{"msgtype":"router_config","NetID":[19],"JoinEui":[[8121069293711392768,18446744073709551615]],"region":"EU868","hwspec":"sx1301/1",
"freq_range":[863000000,870000000],"DRs":[[12,125,0],[11,125,0],[10,125,0],[9,125,0],[8,125,0],[7,125,0],[7,250,0],[0,0,0],[-1,0,0],[-1,0,0],[-1,0,0],[-1,0,0],[-1,0,0],[-1,0,0],[-1,0,0],[-1,0,0]],
"sx1301_conf":[{"radio_0":{"enable":true,"freq":867500000},"radio_1":{"enable":true,"freq":868500000},"chan_multiSF_0":{"enable":true,"radio":1,"if":-400000}}],
"nocca":true,"nodc":true,"nodwell":true,"MuxTime":1764320000.25}`;

const xtimeOf = (text: string) => BigInt(/"xtime":(\d+)/.exec(text)?.[1] ?? '0');

describe('SimulatedBasicStation (tcproto)', () => {
  let lns: TinyLns;
  let station: SimulatedBasicStation;

  beforeEach(async () => {
    lns = new TinyLns(ROUTER_CONFIG);
    await new Promise((resolve) => lns.server.once('listening', resolve));
    station = new SimulatedBasicStation('B827EBFFFE6151D9');
  });

  afterEach(async () => {
    station.close();
    await lns.close();
  });

  it('discovers its data URI on /router-info, or the error for an unknown router', async () => {
    const tc = `ws://localhost:${lns.port}`;
    expect(await SimulatedBasicStation.discover(tc, 'b827:ebff:fe61:51d9')).toEqual({
      router: 'b827:ebff:fe61:51d9',
      muxs: 'muxs-::0',
      uri: `ws://localhost:${lns.port}/traffic/eui-B827EBFFFE6151D9`,
    });
    expect(await SimulatedBasicStation.discover(tc, '::1')).toEqual({ router: '::1', error: 'unknown router' });
  });

  it('connects: version first, router_config kept and checked (64-bit JoinEUI exact); no token over plain ws', async () => {
    const config = await station.connect(`ws://localhost:${lns.port}/traffic/eui-B827EBFFFE6151D9`, { token: 'NNSXS.SECRET' });
    expect((await lns.next('version')).json).toEqual({
      msgtype: 'version',
      station: '2.0.6(test/std)',
      firmware: null,
      package: null,
      model: 'test',
      protocol: 2,
      features: 'gps',
    });
    expect(config).toMatchObject({
      region: 'EU868',
      hwspec: 'sx1301/1',
      freq_range: [863000000, 870000000],
      NetID: [19],
      JoinEui: [[0x70b3d57ed0000000n, 0xffffffffffffffffn]],
      nocca: true,
      MuxTime: 1764320000.25,
    });
    expect(config.DRs[6]).toEqual([7, 250, 0]);
    expect(lns.upgrades[0].headers.authorization).toBeUndefined();
  });

  it('splits frames as station`s lora.c does (its selftest frames)', () => {
    expect(stationFrameFields(Buffer.from('000123456789ABCDEFF1E3F5E7F9EBFDEFF0F1A0A1A2A3', 'hex'))).toEqual({
      msgtype: 'jreq',
      MHdr: 0,
      JoinEui: 'EF-CD-AB-89-67-45-23-01',
      DevEui: 'EF-FD-EB-F9-E7-F5-E3-F1',
      DevNonce: 61936,
      MIC: -1549622880,
    });
    expect(stationFrameFields(Buffer.from('40ABCDEFFF01F3F4FF202122A0A1A2A3', 'hex'))).toEqual({
      msgtype: 'updf',
      MHdr: 64,
      DevAddr: -1061461,
      FCtrl: 1,
      FCnt: 62707,
      FOpts: 'FF',
      FPort: 32,
      FRMPayload: '2122',
      MIC: -1549622880,
    });
    expect(stationFrameFields(Buffer.from('E05F5F5F5F5F5F5F5F5F5F5F5F5F5F5F', 'hex'))).toEqual({
      msgtype: 'propdf',
      FRMPayload: 'E05F5F5F5F5F5F5F5F5F5F5F5F5F5F5F',
    });
    // An unconfirmed data down frame: MHDR 60, DevAddr, FCtrl, FCnt, MIC.
    const down = Buffer.from('60DA1B0126000100' + '11223344', 'hex');
    expect(() => stationFrameFields(down)).toThrow('station does not forward Unconfirmed Data Down frames');
  });

  it('sends a device`s join-request with its radio metadata, xtime in its session, RefTime from the MuxTime', async () => {
    await station.connect(`ws://localhost:${lns.port}/traffic/eui-B827EBFFFE6151D9`);
    const join = new SimulatedOtaaDevice({
      joinEui: '70B3D57ED0000001',
      devEui: '0004A30B001C0530',
      appKey: '01'.repeat(16),
      macVersion: 'MAC_V1_0_3',
    }).joinRequest(0x0102);
    station.sendFrame(join, { DR: 5, Freq: 868100000, rssi: -97, snr: 7.25 });
    const { text, json } = await lns.next('jreq');
    expect(json).toMatchObject({
      MHdr: 0,
      JoinEui: '70-B3-D5-7E-D0-00-00-01',
      DevEui: '00-04-A3-0B-00-1C-05-30',
      DevNonce: 0x0102,
      MIC: join.readInt32LE(19),
      DR: 5,
      Freq: 868100000,
      upinfo: { rctx: 0, gpstime: 0, fts: -1, rssi: -97, snr: 7.25 },
    });
    const xtime = xtimeOf(text);
    expect(xtime >> 48n).toBe(station.session >> 48n);
    expect(xtime >> 48n).toBeGreaterThan(0n);
    expect(json.RefTime).toBeGreaterThanOrEqual(1764320000.25);
  });

  it('keeps dnmsgs (xtime exact) and answers dntxed; answers timesync requests', async () => {
    await station.connect(`ws://localhost:${lns.port}/traffic/eui-B827EBFFFE6151D9`);
    const xtime = station.session | 123_456_789n;
    lns.socket?.send(
      `{"msgtype":"dnmsg","DevEui":"00-00-00-00-00-00-00-01","dC":0,"diid":41,"pdu":"60DA1B0126","priority":25,"rctx":0,"xtime":${xtime},"RxDelay":1,"RX1DR":5,"RX1Freq":868100000,"RX2DR":3,"RX2Freq":869525000,"MuxTime":1764320001.5}`,
    );
    const dn = await station.nextDownlink();
    expect(dn).toMatchObject({ dC: 0, diid: 41, pdu: '60DA1B0126', xtime, RxDelay: 1, RX1DR: 5, RX1Freq: 868100000, RX2DR: 3, RX2Freq: 869525000 });
    station.acknowledge(dn);
    expect((await lns.next('dntxed')).json).toMatchObject({ diid: 41, seqno: 41, DevEui: '00-00-00-00-00-00-00-01', DR: 5, Freq: 868100000, rctx: 0 });
    const sync = await station.timesync();
    expect(sync.gpstime).toBe(1479549618123456n);
  });

  it('after a timesync it stamps received frames with the GPS time of its clock, and dntxed with the slot of a class B dnmsg', async () => {
    await station.connect(`ws://localhost:${lns.port}/traffic/eui-B827EBFFFE6151D9`);
    expect(station.gpstime()).toBeUndefined();
    const before = process.hrtime.bigint();
    await station.timesync();
    const gps = station.gpstime() as bigint;
    // The LNS's 1479549618123456 µs, taken for the midpoint of the exchange: now is at most the exchange's length later.
    expect(gps).toBeGreaterThanOrEqual(1479549618123456n);
    expect(gps - 1479549618123456n).toBeLessThanOrEqual((process.hrtime.bigint() - before) / 1000n);
    station.sendFrame(Buffer.from('E0AABBCCDD', 'hex'), { DR: 5, Freq: 868100000 });
    const up = JSON.parse((await lns.next('propdf')).text.replace(/"gpstime":(\d+)/, '"gpstime":"$1"')) as { upinfo: { gpstime: string } };
    // Stamped when sent: after the sync, before now.
    expect(BigInt(up.upinfo.gpstime)).toBeGreaterThanOrEqual(gps);
    expect(BigInt(up.upinfo.gpstime)).toBeLessThanOrEqual(station.gpstime() as bigint);
    lns.socket?.send(
      '{"msgtype":"dnmsg","DevEui":"00-00-00-00-00-00-00-01","dC":1,"diid":9,"pdu":"60","DR":3,"Freq":869525000,"gpstime":1479549620122000,"rctx":0}',
    );
    station.acknowledge(await station.nextDownlink());
    expect((await lns.next('dntxed')).text).toContain('"gpstime":1479549620122000');
  });

  it('with a latency, sends each message when its timer fires, in order; a pong is no message and is not held back', async () => {
    await station.connect(`ws://localhost:${lns.port}/traffic/eui-B827EBFFFE6151D9`);
    /** Lets I/O run (setImmediate is not faked) until `done`. */
    const settle = async (done: () => boolean) => {
      for (let i = 0; i < 100_000 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
      expect(done()).toBe(true);
    };
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'hrtime', 'performance', 'Date'] });
    try {
      station.latencyMs = 150;
      const from = lns.messages.length;
      station.sendFrame(Buffer.from('E0AA', 'hex'), { DR: 5, Freq: 868100000 });
      station.sendFrame(Buffer.from('E0BB', 'hex'), { DR: 5, Freq: 868100000 });
      // A ping goes there and its pong back; the frames sent before it are still held.
      lns.socket?.ping();
      await settle(() => lns.pongs === 1);
      expect(lns.messages.length).toBe(from);
      jest.advanceTimersByTime(149);
      lns.socket?.ping();
      await settle(() => lns.pongs === 2);
      expect(lns.messages.length).toBe(from);
      jest.advanceTimersByTime(1);
      await settle(() => lns.messages.length === from + 2);
      expect(lns.messages.slice(from).map((m) => m.json.FRMPayload)).toEqual(['E0AA', 'E0BB']);
    } finally {
      jest.useRealTimers();
    }
  });

  it('answers pings until told to stop', async () => {
    await station.connect(`ws://localhost:${lns.port}/traffic/eui-B827EBFFFE6151D9`);
    lns.socket?.ping();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lns.pongs).toBe(1);
    station.answerPings(false);
    lns.socket?.ping();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lns.pongs).toBe(1);
  });

  it('refuses what station would drop of a dnmsg (handle_dnmsg), and says why when the test asks for the downlink', async () => {
    const config = checkRouterConfig(JSON.parse(ROUTER_CONFIG.replace(/8121069293711392768,18446744073709551615/, '1,2')) as Record<string, unknown>);
    const session = 0x0042n << 48n;
    const context = { routerConfig: config, sessions: new Set([session >> 48n]), gpsSynced: false };
    const classA = {
      msgtype: 'dnmsg',
      DevEui: '00-00-00-00-00-00-00-01',
      dC: 0,
      diid: 1,
      pdu: '60',
      xtime: session | 5n,
      RxDelay: 1,
      RX1DR: 5,
      RX1Freq: 868100000,
    };
    expect(dnmsgProblem(classA, context)).toBeUndefined();
    expect(dnmsgProblem(classA, { ...context, routerConfig: undefined })).toBe('dnmsg before router_config');
    expect(dnmsgProblem({ ...classA, DevEui: undefined }, context)).toBe('DevEui missing or not an EUI');
    expect(dnmsgProblem({ ...classA, dC: 3 }, context)).toBe('dC must be 0, 1 or 2');
    expect(dnmsgProblem({ ...classA, pdu: '6' }, context)).toBe('pdu missing or not hex');
    expect(dnmsgProblem({ ...classA, RX1Freq: undefined }, context)).toBe('RX1 data rate and frequency must come together');
    expect(dnmsgProblem({ ...classA, RX1DR: 8 }, context)).toBe('illegal data rate 8 for EU868');
    expect(dnmsgProblem({ ...classA, RX1Freq: 923300000 }, context)).toBe('illegal frequency 923300000, not in 863000000..870000000');
    expect(dnmsgProblem({ ...classA, xtime: (0x0043n << 48n) | 5n }, context)).toMatch(/is not of a current session of this station's radio units/);
    expect(dnmsgProblem({ ...classA, RX1DR: undefined, RX1Freq: undefined }, context)).toBe('neither RX1 nor RX2');
    // Class C on RX2 alone: whenever station can.
    expect(dnmsgProblem({ ...classA, dC: 2, xtime: undefined, RX1DR: undefined, RX1Freq: undefined, RX2DR: 0, RX2Freq: 869525000 }, context)).toBeUndefined();
    const classB = { ...classA, dC: 1, xtime: undefined, RX1DR: undefined, RX1Freq: undefined, DR: 3, Freq: 869525000, gpstime: 1479549620122000n };
    expect(dnmsgProblem(classB, context)).toBe('class B at a gpstime, and the station knows no GPS time');
    expect(dnmsgProblem(classB, { ...context, gpsSynced: true })).toBeUndefined();
    expect(dnmsgProblem({ ...classB, gpstime: undefined }, { ...context, gpsSynced: true })).toBe('a class B dnmsg needs a gpstime');

    await station.connect(`ws://localhost:${lns.port}/traffic/eui-B827EBFFFE6151D9`);
    lns.socket?.send('{"msgtype":"dnmsg","DevEui":"00-00-00-00-00-00-00-01","dC":1,"diid":9,"pdu":"60","DR":3,"Freq":869525000,"gpstime":1479549620122000}');
    await expect(station.nextDownlink()).rejects.toThrow(/station would drop this dnmsg \(class B at a gpstime, and the station knows no GPS time\)/);
  });

  it('refuses a router_config station could not use', () => {
    const good = JSON.parse(ROUTER_CONFIG.replace(/8121069293711392768,18446744073709551615/, '1,2')) as Record<string, unknown>;
    expect(() => checkRouterConfig(good)).not.toThrow();
    expect(() => checkRouterConfig({ ...good, hwspec: 'sx1302/1' })).toThrow('hwspec "sx1302/1" is not sx1301/<n>');
    expect(() => checkRouterConfig({ ...good, sx1301_conf: [] })).toThrow('sx1301_conf must hold one concentrator');
    expect(() => checkRouterConfig({ ...good, region: undefined })).toThrow('no region');
    expect(() => checkRouterConfig({ ...good, freq_range: [870000000, 863000000] })).toThrow('freq_range must be [min, max] Hz');
    expect(() => checkRouterConfig({ ...good, DRs: [[12, 125]] })).toThrow('DR [12,125] is not [SF, BW, dnonly]');
    expect(() => checkRouterConfig({ ...good, NetID: 'all' })).toThrow('NetID must be null or integers');
    expect(() => checkRouterConfig({ ...good, nodc: 1 })).toThrow('nodc must be a boolean');
  });

  it('over wss:// it checks the server against its trust and sends the token on discovery and the data connection', async () => {
    // A certificate for localhost (station's TLS checks host names, not addresses), made by openssl.
    const dir = mkdtempSync(join(tmpdir(), 'lbs-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=DNS:localhost',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
      const cert = readFileSync(join(dir, 'cert.pem'));
      const https = createServer({ cert, key: readFileSync(join(dir, 'key.pem')) });
      const secure = new WebSocketServer({ server: https });
      const headers: Array<string | undefined> = [];
      secure.on('connection', (ws, req) => {
        headers.push(req.headers.authorization);
        ws.on('message', (data) => {
          const json = JSON.parse(String(data)) as Record<string, unknown>;
          if ('router' in json) ws.send(JSON.stringify({ router: json.router, muxs: 'muxs-::0', uri: `wss://localhost:${port}/traffic/eui-B827EBFFFE6151D9` }));
          if (json.msgtype === 'version') ws.send(ROUTER_CONFIG);
        });
      });
      await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
      const port = (https.address() as AddressInfo).port;
      try {
        const info = await SimulatedBasicStation.discover(`wss://localhost:${port}`, 'b827:ebff:fe61:51d9', { token: 'NNSXS.SECRET', ca: cert });
        await station.connect(info.uri as string, { token: 'NNSXS.SECRET', ca: cert });
        expect(headers).toEqual(['Bearer NNSXS.SECRET', 'Bearer NNSXS.SECRET']);
        station.close();
        // Without the server's certificate in its trust, station does not connect.
        await expect(SimulatedBasicStation.discover(`wss://localhost:${port}`, 'b827:ebff:fe61:51d9', { token: 'NNSXS.SECRET' })).rejects.toThrow();
      } finally {
        for (const client of secure.clients) client.terminate();
        await new Promise((resolve) => https.close(resolve));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
