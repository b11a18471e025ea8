import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import loraPacket from 'lora-packet';
import { eventually, loraJoinAccept } from '@lorawan/testing';
import { CliError } from '../errors';
import { joinAcceptWindow, simulateJoin, type SimulateJoinOptions } from './simulate';

/**
 * `simulate join` over real UDP on 127.0.0.1 against a fake Gateway Server: it acks PULL_DATA and
 * PUSH_DATA, answers the join-request with a PULL_RESP carrying a join-accept built with
 * lora-packet (see loraJoinAccept), and records what the gateway sent.
 */
const APP_KEY = '2B7E151628AED2A6ABF7158809CF4F3C';
const NWK_KEY = '000102030405060708090A0B0C0D0E0F';
const JOIN_EUI = '70B3D57ED0000001';
const DEV_EUI = '0004A30B001C0530';
const GATEWAY_EUI = '0102030405060708';
const H = (s: string) => Buffer.from(s, 'hex');
const hex = (b: Buffer | undefined) => (b ?? Buffer.alloc(0)).toString('hex').toUpperCase();

interface FakeGs {
  port: number;
  /** Every datagram: identifier, token, the gateway EUI and the JSON body. */
  received: Array<{ id: number; token: number; eui: string; body?: Record<string, unknown> }>;
  close(): void;
}

interface Answer {
  /** Seconds after the join-request's tmst (5: RX1, 6: RX2); 'none' never answers. */
  delay: 5 | 6 | 5.5 | 'none';
  /** Milliseconds before the PULL_RESP is sent. */
  after?: number;
  tamper?: boolean;
  /** A PULL_RESP body instead of `{"txpk":{…}}`. */
  body?: string;
}

async function fakeGatewayServer(answer: Answer): Promise<FakeGs> {
  const socket: Socket = createSocket('udp4');
  const received: FakeGs['received'] = [];
  let downlinkPath: RemoteInfo | undefined;
  const timers: NodeJS.Timeout[] = [];
  socket.on('message', (msg, from) => {
    const [version, id] = [msg[0], msg[3]];
    const token = msg.readUInt16BE(1);
    const body = msg.length > 12 ? (JSON.parse(msg.subarray(12).toString()) as Record<string, unknown>) : undefined;
    received.push({ id, token, eui: hex(msg.subarray(4, 12)), body });
    if (id === 0x02) downlinkPath = from;
    if (id === 0x00 || id === 0x02) socket.send(Buffer.from([version, msg[1], msg[2], id === 0x00 ? 0x01 : 0x04]), from.port, from.address);
    if (id !== 0x00 || answer.delay === 'none') return;
    const rxpk = (body?.rxpk as Array<Record<string, unknown>>)[0];
    const request = loraPacket.fromWire(Buffer.from(rxpk.data as string, 'base64'));
    const is11 = loraPacket.verifyMIC(request, undefined, H(NWK_KEY));
    const devNonce = hex(request.getBuffers().DevNonce);
    const jsIntKey = hex(loraPacket.generateJSKeys(H(NWK_KEY), H(DEV_EUI)).JSIntKey);
    const accept = loraJoinAccept({
      key: is11 ? NWK_KEY : APP_KEY,
      joinNonce: '000001',
      netId: '000013',
      devAddr: '260B1234',
      rx1DrOffset: 0,
      rx2Dr: 3,
      rxDelay: 5,
      cfList: H('184F84E85684B85E84886684586E8400'),
      ...(is11 ? { optNeg: true, jsIntKey, joinEui: JOIN_EUI, devNonce } : {}),
    });
    if (answer.tamper) accept[5] ^= 0x40;
    const txpk = {
      imme: false,
      tmst: ((rxpk.tmst as number) + answer.delay * 1_000_000) >>> 0,
      freq: answer.delay === 6 ? 869.525 : rxpk.freq,
      rfch: 0,
      powe: 14,
      modu: 'LORA',
      datr: answer.delay === 6 ? 'SF9BW125' : rxpk.datr,
      codr: '4/5',
      ipol: true,
      size: accept.length,
      data: accept.toString('base64'),
    };
    timers.push(
      setTimeout(() => {
        if (downlinkPath)
          socket.send(
            Buffer.concat([Buffer.from([2, 0xbe, 0xef, 0x03]), Buffer.from(answer.body ?? JSON.stringify({ txpk }))]),
            downlinkPath.port,
            downlinkPath.address,
          );
      }, answer.after ?? 10),
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    port: socket.address().port,
    received,
    close: () => {
      timers.forEach(clearTimeout);
      socket.close();
    },
  };
}

function options(port: number, over: Partial<SimulateJoinOptions> = {}): SimulateJoinOptions {
  return {
    udp: { host: '127.0.0.1', port },
    gatewayEui: GATEWAY_EUI,
    joinEui: JOIN_EUI,
    devEui: DEV_EUI,
    appKey: APP_KEY,
    macVersion: 'MAC_V1_0_3',
    frequency: 868.3,
    dataRate: 'SF8BW125',
    timeoutMs: 2000,
    ...over,
  };
}

async function failure(promise: Promise<unknown>): Promise<CliError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof CliError)) throw new Error(`expected a CliError, got ${String(err)}`);
  return err;
}

describe('simulateJoin', () => {
  let gs: FakeGs | undefined;
  afterEach(() => {
    gs?.close();
    gs = undefined;
  });

  it('1.0.3 in RX1: PULL_DATA, the join-request in an rxpk, TX_ACK for the join-accept, and what the device derived', async () => {
    gs = await fakeGatewayServer({ delay: 5 });
    const notes: string[] = [];
    const result = await simulateJoin(options(gs.port), (line) => notes.push(line));

    // PULL_DATA first (the downlink path), then PUSH_DATA, then TX_ACK with the PULL_RESP's token
    // (sent before the command closes its socket).
    const fake = gs;
    await eventually(() => fake.received.some((r) => r.id === 0x05), 1000);
    const ids = gs.received.map((r) => r.id);
    expect(ids.slice(0, 2)).toEqual([0x02, 0x00]);
    expect(gs.received.filter((r) => r.id === 0x05)).toEqual([{ id: 0x05, token: 0xbeef, eui: GATEWAY_EUI, body: undefined }]);
    expect(gs.received.every((r) => r.eui === GATEWAY_EUI)).toBe(true);
    const push = gs.received.find((r) => r.id === 0x00);
    const rxpk = (push?.body?.rxpk as Array<Record<string, unknown>>)[0];
    expect(rxpk).toMatchObject({ freq: 868.3, datr: 'SF8BW125', modu: 'LORA', stat: 1, size: 23 });
    const request = loraPacket.fromWire(Buffer.from(rxpk.data as string, 'base64'));
    expect([request.getMType(), hex(request.getBuffers().AppEUI), hex(request.getBuffers().DevEUI)]).toEqual(['Join Request', JOIN_EUI, DEV_EUI]);
    expect(loraPacket.verifyMIC(request, undefined, H(APP_KEY))).toBe(true);

    const devNonce = hex(request.getBuffers().DevNonce);
    const keys = loraPacket.generateSessionKeys10(H(APP_KEY), H('000013'), H('000001'), H(devNonce));
    expect(result).toEqual({
      dev_addr: '260B1234',
      net_id: '000013',
      join_nonce: '000001',
      dev_nonce: devNonce,
      dl_settings: { opt_neg: false, rx1_dr_offset: 0, rx2_dr: 3 },
      rx_delay: 5,
      cf_list: '184F84E85684B85E84886684586E8400',
      rx_window: 'RX1',
      txpk: { freq: 868.3, datr: 'SF8BW125', powe: 14, tmst: ((rxpk.tmst as number) + 5_000_000) >>> 0 },
      session_keys: { nwk_s_key: hex(keys.NwkSKey), app_s_key: hex(keys.AppSKey) },
    });
    expect(notes.join('\n')).toMatch(new RegExp(`DevNonce ${devNonce}, 868.3 MHz SF8BW125[\\s\\S]*join-accept received: DevAddr 260B1234`));
  });

  it('1.1 in RX2 with a given DevNonce: the OptNeg join-accept, four session keys; PULL_DATA kept alive meanwhile', async () => {
    gs = await fakeGatewayServer({ delay: 6, after: 2300 });
    const result = await simulateJoin(options(gs.port, { macVersion: 'MAC_V1_1', nwkKey: NWK_KEY, devNonce: 0x0102, timeoutMs: 4000 }));
    const keys = loraPacket.generateSessionKeys11(H(APP_KEY), H(NWK_KEY), H(JOIN_EUI), H('000001'), H('0102'));
    expect(result).toMatchObject({
      dev_nonce: '0102',
      dl_settings: { opt_neg: true, rx1_dr_offset: 0, rx2_dr: 3 },
      rx_window: 'RX2',
      txpk: { freq: 869.525, datr: 'SF9BW125', powe: 14 },
      session_keys: {
        f_nwk_s_int_key: hex(keys.FNwkSIntKey),
        s_nwk_s_int_key: hex(keys.SNwkSIntKey),
        nwk_s_enc_key: hex(keys.NwkSEncKey),
        app_s_key: hex(keys.AppSKey),
      },
    });
    // A PULL_DATA at the start and another 2 s later, while the join-accept was still coming.
    expect(gs.received.filter((r) => r.id === 0x02).length).toBeGreaterThanOrEqual(2);
  });

  it('fails when no join-accept comes within the timeout, hinting at the DevNonce counter for 1.0.4', async () => {
    gs = await fakeGatewayServer({ delay: 'none' });
    const err = await failure(simulateJoin(options(gs.port, { macVersion: 'MAC_V1_0_4', devNonce: 7, timeoutMs: 300 })));
    expect(err.message).toMatch(/^no join-accept within 0.3 s \(DevNonce 0007\); MAC_V1_0_4 counts DevNonces/);
    expect(gs.received.some((r) => r.id === 0x05)).toBe(false);
  });

  it('fails on a join-accept whose MIC does not verify, after acknowledging its transmission', async () => {
    gs = await fakeGatewayServer({ delay: 5, tamper: true });
    const err = await failure(simulateJoin(options(gs.port)));
    expect(err.message).toMatch(/^the downlink is not a join-accept this device accepts: join-accept MIC mismatch/);
    const fake = gs;
    await eventually(() => fake.received.some((r) => r.id === 0x05), 1000);
  });

  it('fails on a PULL_RESP without a txpk', async () => {
    gs = await fakeGatewayServer({ delay: 5, body: '{"txpk":' });
    expect((await failure(simulateJoin(options(gs.port)))).message).toBe('the PULL_RESP carries no txpk.data: {"txpk":');
  });

  it('fails on a join-accept timed for neither RX window', async () => {
    gs = await fakeGatewayServer({ delay: 5.5 });
    expect((await failure(simulateJoin(options(gs.port)))).message).toBe(
      'the join-accept is scheduled 5500000 µs after the join-request: neither RX1 (5 s) nor RX2 (6 s)',
    );
  });

  it('fails when nothing acks PULL_DATA', async () => {
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    try {
      const err = await failure(simulateJoin(options(silent.address().port, { timeoutMs: 300 })));
      expect(err.message).toMatch(/^no PULL_ACK from 127.0.0.1:\d+ \(no ack for token \d+ within 300 ms\): is a Gateway Server listening for UDP there\?/);
    } finally {
      silent.close();
    }
  });
});

describe('joinAcceptWindow', () => {
  it('RX1 5 s and RX2 6 s after the uplink, across the 32-bit counter wrap', () => {
    expect(joinAcceptWindow(1_000_000, 6_000_000)).toBe('RX1');
    expect(joinAcceptWindow(1_000_000, 7_000_000)).toBe('RX2');
    expect(joinAcceptWindow(0xffffffff - 999_999, 4_000_000)).toBe('RX1');
    expect(joinAcceptWindow(0xffffffff, 5_999_999)).toBe('RX2');
  });

  it('refuses any other delay and a txpk without tmst', () => {
    expect(() => joinAcceptWindow(1_000_000, 2_000_000)).toThrow(/1000000 µs after the join-request: neither RX1/);
    expect(() => joinAcceptWindow(1_000_000, undefined)).toThrow(/txpk has no tmst/);
  });
});
