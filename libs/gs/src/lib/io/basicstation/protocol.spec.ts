import type { AddressInfo } from 'node:net';
import loraPacket from 'lora-packet';
import { SimulatedBasicStation, SimulatedOtaaDevice } from '@lorawan/testing';
import { WebSocketServer } from 'ws';
import { parseRouterInfoQuery, parseTrafficPath, routerInfoAnswer, routerInfoError } from './discovery';
import { toDnmsg, toTxConfirmation, type TxConfirmation } from './downlink';
import { stringifyStationJson } from './json';
import { parseUpstream } from './messages';
import { routerConfig } from './router-config';
import { timesyncAnswer } from './time';
import { toUplinkMessage } from './uplink';
import type { UplinkMessageJson } from '../messages';

/**
 * The protocol layer against the test station (both written from the specification, neither from
 * the other) over a real WebSocket: the few lines a frontend will have, with no GS core behind.
 */
describe('Basics Station protocol layer ↔ SimulatedBasicStation', () => {
  const gateway = { gateway_id: 'gtw-lbs', eui: 'B827EBFFFE6151D9' };
  const device = new SimulatedOtaaDevice({ joinEui: '70B3D57ED0000002', devEui: '0004A30B001C0531', appKey: '02'.repeat(16), macVersion: 'MAC_V1_0_4' });
  let server: WebSocketServer;
  let port: number;
  const uplinks: UplinkMessageJson[] = [];
  const acks: TxConfirmation[] = [];
  const refused: string[] = [];
  let send: ((text: string) => void) | undefined;

  beforeAll(async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
    server.on('connection', (ws, req) => {
      if (req.url === '/router-info') {
        ws.on('message', (data) => {
          const query = parseRouterInfoQuery(String(data));
          const answer =
            'error' in query
              ? routerInfoError(undefined, query.error)
              : query.eui === gateway.eui
                ? routerInfoAnswer(query, { scheme: 'ws', host: 'localhost', port })
                : routerInfoError(query.router, 'unknown gateway');
          ws.send(stringifyStationJson(answer));
        });
        return;
      }
      if (parseTrafficPath(req.url ?? '') !== gateway.eui) return ws.close(4004);
      send = (text) => ws.send(text);
      ws.on('message', (data) => {
        const now = new Date();
        const msg = parseUpstream(String(data));
        if ('error' in msg) return void refused.push(msg.error);
        switch (msg.type) {
          case 'version': {
            const config = routerConfig(['EU_863_870'], { production: false, mux_time: now.getTime() / 1000 });
            if (!('error' in config)) ws.send(stringifyStationJson(config));
            return;
          }
          case 'jreq':
          case 'updf':
          case 'propdf': {
            const up = toUplinkMessage(msg, 'EU_863_870', gateway, now.toISOString(), 'gs:uplink:test');
            if ('error' in up) refused.push(up.error);
            else uplinks.push(up);
            return;
          }
          case 'dntxed':
            return void acks.push(toTxConfirmation(msg));
          case 'timesync':
            return ws.send(stringifyStationJson(timesyncAnswer(msg.txtime, now)));
        }
      });
    });
  });

  afterAll(async () => {
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => server.close(resolve));
  });

  async function until<T>(get: () => T | undefined): Promise<T> {
    for (let i = 0; i < 300; i++) {
      const value = get();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('timed out');
  }

  it('discovery, router_config, a join-request and a data uplink, a class A dnmsg and its dntxed, timesync', async () => {
    const tc = `ws://localhost:${port}`;
    expect(await SimulatedBasicStation.discover(tc, '::1')).toEqual({ router: '::1', error: 'unknown gateway' });
    const info = await SimulatedBasicStation.discover(tc, 'b827:ebff:fe61:51d9');
    expect(info.uri).toBe(`ws://localhost:${port}/traffic/eui-B827EBFFFE6151D9`);

    const station = new SimulatedBasicStation(gateway.eui);
    try {
      const config = await station.connect(info.uri as string);
      expect(config).toMatchObject({ region: 'EU868', hwspec: 'sx1301/1', freq_range: [863000000, 870000000], nocca: true, nodc: true, nodwell: true });

      const join = device.joinRequest();
      const sent = station.sendFrame(join, { DR: 5, Freq: 868100000, rssi: -80, snr: 8 });
      const data = loraPacket
        .fromFields(
          { MType: 'Unconfirmed Data Up', DevAddr: Buffer.from('26011BDA', 'hex'), FCnt: 7, FPort: 3, payload: Buffer.from('hi') },
          Buffer.alloc(16, 2),
          Buffer.alloc(16, 3),
        )
        .getPHYPayload() as Buffer;
      station.sendFrame(data, { DR: 3, Freq: 867100000 });
      const [joinUp, dataUp] = await until(() => (uplinks.length >= 2 ? uplinks : undefined));
      expect(Buffer.from(joinUp.raw_payload, 'base64')).toEqual(join);
      expect(Buffer.from(dataUp.raw_payload, 'base64')).toEqual(data);
      const xtime = (sent.upinfo as { xtime: bigint }).xtime;
      expect(joinUp.settings.timestamp).toBe(Number(xtime & 0xffffffffn));

      const dnmsg = toDnmsg(
        {
          diid: 1,
          payload: Buffer.from('20AABBCCDDEEFF00112233445566778899', 'hex'),
          timing: { class: 'A', xtime, rx_delay: 5, rx1: { data_rate: { lora: { spreading_factor: 7, bandwidth: 125000 } }, frequency: 868100000 } },
          mux_time: Date.now() / 1000,
        },
        'EU_863_870',
      );
      if ('error' in dnmsg) throw new Error(String(dnmsg.error));
      send?.(stringifyStationJson(dnmsg));
      const dn = await station.nextDownlink();
      expect(dn).toMatchObject({ dC: 0, diid: 1, xtime, RxDelay: 5, RX1DR: 5, RX1Freq: 868100000, pdu: '20AABBCCDDEEFF00112233445566778899' });
      station.acknowledge(dn);
      expect(await until(() => acks[0])).toMatchObject({ diid: 1, result: 'SUCCESS' });

      const before = Date.now();
      const sync = await station.timesync();
      // GPS ms since 1980-01-06, 18 leap seconds ahead of UTC: the server's time when the request arrived.
      const utcMs = Number(sync.gpstime / 1000n) + Date.UTC(1980, 0, 6) - 18_000;
      expect(utcMs).toBeGreaterThanOrEqual(before);
      expect(utcMs).toBeLessThanOrEqual(Date.now());

      station.sendRaw('{"msgtype":"updf","MHdr":"x"}');
      expect(await until(() => refused[0])).toBe('message: `MHdr` must be an integer in [0, 255]');
    } finally {
      station.close();
    }
  });
});
