/**
 * UDP fuzzing of the Gateway Server's Semtech packet forwarder port (`stack.udpPort`): random
 * datagrams, truncated and garbled headers, valid headers with garbage JSON, valid PUSH_DATA with
 * mutated rxpk fields, and LoRaWAN PHY payloads that are random or mutated from valid join-requests
 * and data uplinks built by `lora-packet` (never by the stack's own code). Half of them come from
 * a registered gateway's EUI, so they reach the Network Server. Sent at a pace below the per-EUI
 * flood filter (100 datagrams per 100 ms).
 *
 * Asserted: every process keeps running with readiness 200 (checked every few hundred datagrams),
 * and afterwards the port answers a well-formed PULL_DATA with PULL_ACK and PUSH_DATA with PUSH_ACK,
 * for the registered gateway and for an unknown one. A second phase floods the port with PUSH_DATA
 * and PULL_DATA from random EUIs as fast as it can: the Identity Server gets at most the Gateway
 * Server's lookup rate (GS_UNKNOWN_EUI_LOOKUPS_PER_SEC, read from its `/metrics`), nothing crashes.
 */
import { createSocket, type Socket } from 'node:dgram';
import fc from 'fast-check';
import loraPacket from 'lora-packet';
import { loraJoinRequest, SimulatedUdpGateway, type StackUnderTest } from '@lorawan/testing';
import { ADMIN_USER_ID, Api, expectStatus } from '../http-client';
import { uid } from '../devices';
import { metricSum, scrape } from '../prometheus';
import { expectAlive, FUZZ_DATAGRAMS, FUZZ_EUI_LOOKUPS_PER_SEC, FUZZ_SEED, FUZZ_UDP_BUDGET_MS, MODES } from './fuzz-config';
import { nastyString, wrongValue } from './request-arbitraries';

const REGISTERED_EUI = 'AA555A0000F0221E';

/** A data uplink built by lora-packet (MIC with an arbitrary key: the NS will not know the device). */
function loraDataUp(devAddr: Buffer, fCnt: number, payload: Buffer, confirmed: boolean): Buffer {
  return loraPacket
    .fromFields(
      { MType: confirmed ? 'Confirmed Data Up' : 'Unconfirmed Data Up', DevAddr: devAddr, FCnt: fCnt, FPort: 1, payload },
      Buffer.alloc(16, 1),
      Buffer.alloc(16, 2),
    )
    .getPHYPayload() as Buffer;
}

const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((b) => Buffer.from(b));

/** A valid PHY payload from lora-packet, then bytes flipped, cut or appended (or none). */
const phyPayload: fc.Arbitrary<Buffer> = fc.oneof(
  bytes(300),
  fc
    .tuple(
      fc.oneof(
        fc
          .tuple(fc.uint8Array({ minLength: 8, maxLength: 8 }), fc.uint8Array({ minLength: 2, maxLength: 2 }))
          .map(([dev, nonce]) => loraJoinRequest({ devEui: Buffer.from(dev).toString('hex'), devNonce: Buffer.from(nonce).toString('hex') })),
        fc
          .tuple(fc.uint8Array({ minLength: 4, maxLength: 4 }), fc.nat({ max: 0xffff }), bytes(64), fc.boolean())
          .map(([addr, fCnt, payload, confirmed]) => loraDataUp(Buffer.from(addr), fCnt, payload, confirmed)),
      ),
      fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { maxLength: 4 }),
      fc.option(fc.nat({ max: 40 }), { nil: undefined }),
      bytes(16),
    )
    .map(([frame, flips, cut, extra]) => {
      const out = Buffer.from(frame);
      for (const [i, b] of flips) if (out.length > 0) out[i % out.length] = b;
      return Buffer.concat([cut === undefined ? out : out.subarray(0, cut), extra]);
    }),
);

const validRxpk = (data: Buffer) => SimulatedUdpGateway.rxpk(data);
const RXPK_FIELDS = [
  'tmst',
  'time',
  'tmms',
  'chan',
  'rfch',
  'freq',
  'stat',
  'modu',
  'datr',
  'codr',
  'rssi',
  'lsnr',
  'size',
  'data',
  'rsig',
  '__proto__',
  'constructor',
];

/** rxpks with some fields replaced by wrong or edge values (or removed). */
const mutatedRxpk: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    phyPayload,
    fc.array(
      fc.tuple(
        fc.constantFrom(...RXPK_FIELDS),
        fc.oneof(
          wrongValue,
          fc.constantFrom(undefined, -1, 0, 2 ** 32, 1e20, 'SF13BW125', 'SF7BW9999', 'FSK', '4/9', 'M2G', 'not base64!', 'SF12BW125', 863.0, 1020.0, -200),
        ),
      ),
      { maxLength: 4 },
    ),
  )
  .map(([frame, changes]) => {
    const rxpk: Record<string, unknown> = validRxpk(frame);
    for (const [k, v] of changes) Object.defineProperty(rxpk, k, { value: v, enumerable: true, writable: true, configurable: true });
    return rxpk;
  });

const eui = fc.oneof(
  fc.constant(REGISTERED_EUI),
  fc.uint8Array({ minLength: 8, maxLength: 8 }).map((b) => Buffer.from(b).toString('hex')),
);
const header = (version: number, token: number, type: number, gatewayEui: string) =>
  Buffer.concat([Buffer.from([version, token >> 8, token & 0xff, type]), Buffer.from(gatewayEui, 'hex')]);
const validHeader = (type: number) => fc.tuple(fc.nat({ max: 0xffff }), eui).map(([token, e]) => header(2, token, type, e));

/** Every kind of datagram the suite sends. */
const datagram: fc.Arbitrary<Buffer> = fc.oneof(
  // random bytes, short and long
  bytes(64),
  bytes(65_000).map((b) => b.subarray(0, 9000)),
  // truncated or garbled headers
  fc.tuple(validHeader(0), fc.nat({ max: 11 })).map(([h, n]) => h.subarray(0, n)),
  fc
    .tuple(fc.nat({ max: 255 }), fc.nat({ max: 0xffff }), fc.nat({ max: 255 }), eui, bytes(40))
    .map(([v, t, type, e, rest]) => Buffer.concat([header(v, t, type, e), rest])),
  // valid headers, garbage or hostile JSON
  fc
    .tuple(
      fc.constantFrom(0, 2, 5),
      fc.oneof(
        nastyString,
        wrongValue.map((v) => JSON.stringify(v) ?? 'null'),
      ),
    )
    .chain(([type, text]) => validHeader(type).map((h) => Buffer.concat([h, Buffer.from(text)]))),
  validHeader(0).map((h) => Buffer.concat([h, Buffer.from(`${'{"rxpk":['.repeat(5000)}`)])),
  fc.tuple(validHeader(0), bytes(200)).map(([h, b]) => Buffer.concat([h, Buffer.from([0xff, 0xfe]), b])),
  // PUSH_DATA: valid envelope, mutated rxpk / stat
  fc.tuple(validHeader(0), fc.array(mutatedRxpk, { minLength: 1, maxLength: 3 })).map(([h, rxpk]) => Buffer.concat([h, Buffer.from(JSON.stringify({ rxpk }))])),
  fc
    .tuple(
      validHeader(0),
      fc.dictionary(fc.constantFrom('rxnb', 'rxok', 'rxfw', 'ackr', 'dwnb', 'txnb', 'time', 'lati', 'long', 'alti', '__proto__'), wrongValue),
    )
    .map(([h, stat]) => Buffer.concat([h, Buffer.from(JSON.stringify({ stat }))])),
  // PUSH_DATA: valid rxpk, PHY payload random or mutated from lora-packet's
  fc.tuple(validHeader(0), phyPayload).map(([h, frame]) => Buffer.concat([h, Buffer.from(JSON.stringify({ rxpk: [validRxpk(frame)] }))])),
  // TX_ACK with garbage
  fc.tuple(validHeader(5), fc.oneof(fc.constant('{"txpk_ack":{"error":"TOO_LATE"}}'), nastyString)).map(([h, t]) => Buffer.concat([h, Buffer.from(t)])),
);

describe.each(MODES)('UDP fuzzing of the Gateway Server (%s)', (mode, start) => {
  let stack: StackUnderTest;
  let socket: Socket;
  const api = new Api(() => stack);
  const counts = { datagrams: 0, bytes: 0, flood: 0, flood_lookups: 0 };
  const started = Date.now();

  beforeAll(async () => {
    stack = await start();
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, {
        gateway: { ids: { gateway_id: uid('fz-udp'), eui: REGISTERED_EUI }, frequency_plan_id: 'EU_863_870_TTN' },
      }),
      200,
    );
    socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    process.stdout.write(`${JSON.stringify({ fuzz: 'udp', mode, seed: FUZZ_SEED, ...counts, ms: Date.now() - started })}\n`);
    socket?.close();
    await stack?.stop();
  });

  /** Sends one datagram, counted as fuzzed unless it is the flood's. */
  const send = (datagram: Buffer, fuzzed = true) =>
    new Promise<void>((resolve, reject) => {
      // At most what one UDP datagram carries.
      const d = datagram.subarray(0, 65_000);
      if (fuzzed) {
        counts.datagrams++;
        counts.bytes += d.length;
      } else counts.flood++;
      socket.send(d, stack.udpPort, '127.0.0.1', (err) => (err ? reject(err) : resolve()));
    });

  /** A well-formed PULL_DATA and PUSH_DATA get their ACKs (from `eui`). */
  async function expectAcks(gatewayEui: string): Promise<void> {
    if (!stack.udpPort) throw new Error('the stack has no Gateway Server UDP port');
    const g = new SimulatedUdpGateway(gatewayEui, { host: '127.0.0.1', port: stack.udpPort });
    await g.open();
    try {
      expect(await g.pull()).toBe(0x04);
      expect(await g.push({ rxpk: [SimulatedUdpGateway.rxpk(loraJoinRequest())] })).toBe(0x01);
    } finally {
      g.close();
    }
  }

  it('survives random and mutated datagrams and still acks well-formed ones', async () => {
    await expectAcks(REGISTERED_EUI);
    const deadline = Date.now() + FUZZ_UDP_BUDGET_MS;
    await fc.assert(
      fc.asyncProperty(fc.array(datagram, { minLength: 20, maxLength: 20 }), async (batch) => {
        for (const d of batch) await send(d);
        // Below the flood filter's 100 per 100 ms per EUI, and time for the stack to work.
        await new Promise((r) => setTimeout(r, 25));
        if (counts.datagrams % 400 < 20) await expectAlive(stack);
      }),
      {
        seed: FUZZ_SEED,
        numRuns: Math.ceil(FUZZ_DATAGRAMS / 20),
        interruptAfterTimeLimit: Math.max(0, deadline - Date.now()),
        markInterruptAsFailure: false,
        endOnFailure: true,
      },
    );
    // Past the flood filter's window, then the well-formed exchange.
    await new Promise((r) => setTimeout(r, 200));
    await expectAlive(stack);
    await expectAcks(REGISTERED_EUI);
    await expectAcks('AA555A00000000FF');
    await expectAlive(stack);
    expect(counts.datagrams).toBeGreaterThan(0);
  });

  it('a flood from random gateway EUIs costs the IS at most the lookup rate, and crashes nothing', async () => {
    const isMetrics = () => scrape(mode === 'distributed' ? `http://127.0.0.1:${stack.healthPorts.get('is#0')}/metrics` : `${stack.baseUrl}/metrics`);
    const lookups = async () => metricSum(await isMetrics(), 'lorawan_rpc_server_handled_total', { component: 'is', rpc: 'GsIs.GetGatewayForEUI' });
    await new Promise((r) => setTimeout(r, 1100)); // the lookup bucket full again after the first phase
    const before = await lookups();
    const started = Date.now();
    const flood = fc.tuple(fc.uint8Array({ minLength: 8, maxLength: 8 }), fc.nat({ max: 0xffff }), fc.boolean(), phyPayload).map(([e, token, push, frame]) => {
      const h = header(2, token, push ? 0 : 2, Buffer.from(e).toString('hex'));
      return push ? Buffer.concat([h, Buffer.from(JSON.stringify({ rxpk: [validRxpk(frame)] }))]) : h;
    });
    const datagrams = fc.sample(flood, { seed: FUZZ_SEED, numRuns: FUZZ_DATAGRAMS });
    for (const [i, d] of datagrams.entries()) {
      await send(d, false);
      if (i % 200 === 199) await new Promise((r) => setTimeout(r, 5));
    }
    // Lookups in flight answered.
    let after = await lookups();
    for (let last = -1; after !== last; after = await lookups()) {
      last = after;
      await new Promise((r) => setTimeout(r, 300));
    }
    counts.flood_lookups = after - before;
    const seconds = (Date.now() - started) / 1000;
    expect(counts.flood_lookups).toBeLessThanOrEqual(2 * FUZZ_EUI_LOOKUPS_PER_SEC * (1 + seconds));
    await expectAlive(stack);
    await expectAcks(REGISTERED_EUI);
  });
});
