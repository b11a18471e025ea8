import mqtt, { type MqttClient } from 'mqtt';
import { createApplicationApiKey } from './applications';
import { log, round } from './load';
import { latencyFigures, type RadioPhaseOptions, sleep } from './radio';
import { buildFrames, DELIVERY_WAIT_MS, isDelivered, measured, openUplinkLoad, type RadioNames, type Tx, warmUp } from './uplinks';

/**
 * `mqtt_fanout` (issue 34): `subscribers` MQTT clients (MQTT.js, MQTT 3.1.1, QoS 0, each its own
 * TCP connection) on the Application Server's MQTT server, each subscribed to
 * `v3/{application}/devices/+/up` with an API key of the application holding
 * `RIGHT_APPLICATION_TRAFFIC_READ`, while the `uplinks` phase's unconfirmed load (its devices
 * joined through the gateways, its warm-up, `o.rate` per second for `o.durationS`) reaches the AS.
 * The application's webhook serves the setup only (the first uplinks) and is deleted before the
 * warm-up: the AS's CPU is then the MQTT server's fan-out, not a webhook's. Each message is matched
 * to its uplink by the topic's device ID and the message's `f_cnt` (read without parsing the whole
 * message: the subscribers share the load generator's core with the gateways).
 */
export interface MqttFanoutOptions extends RadioPhaseOptions {
  subscribers: number;
  /** The AS replicas' MQTT ports (`subscribers` spread over them). */
  mqttPorts: number[];
}

export const MQTT_FANOUT_NAMES: RadioNames = { label: 'mqtt_fanout', deviceIdPrefix: 'fan', devEuiPrefix: '70B3D57EC2', gatewayIdPrefix: 'bench-fan-gtw' };

const F_CNT = Buffer.from('"f_cnt":');

/** The `f_cnt` of an ApplicationUp's JSON (the first one: the uplink message's), or -1. */
function fCntOf(payload: Buffer): number {
  const at = payload.indexOf(F_CNT);
  if (at < 0) return -1;
  let n = 0;
  let i = at + F_CNT.length;
  for (; i < payload.length && payload[i] >= 0x30 && payload[i] <= 0x39; i++) n = n * 10 + payload[i] - 0x30;
  return i === at + F_CNT.length ? -1 : n;
}

/**
 * What the subscribers received: per uplink (by its index in the air), the arrival time at each
 * subscriber (Date.now()); an uplink every subscriber got is delivered (`deliveredAt`: the last arrival).
 */
class Receipts {
  readonly byTx = new Map<number, number[]>();
  private readonly counts = new Map<number, number>();
  unknown = 0;
  duplicates = 0;

  constructor(
    private readonly byFrame: Map<string, number>,
    private readonly txs: Tx[],
    private readonly subscribers: number,
  ) {}

  record(subscriber: number, topic: string, payload: Buffer): void {
    const at = Date.now();
    // v3/{application}/devices/{device}/up
    const parts = topic.split('/');
    const index = this.byFrame.get(`${parts[3]}/${fCntOf(payload)}`);
    if (index === undefined) {
      this.unknown++;
      return;
    }
    let arrivals = this.byTx.get(index);
    if (!arrivals) {
      arrivals = new Array<number>(this.subscribers).fill(0);
      this.byTx.set(index, arrivals);
    }
    if (arrivals[subscriber] !== 0) {
      this.duplicates++;
      return;
    }
    arrivals[subscriber] = at;
    const count = (this.counts.get(index) ?? 0) + 1;
    this.counts.set(index, count);
    if (count === this.subscribers) this.txs[index].deliveredAt = at;
  }
}

async function connectSubscriber(port: number, username: string, password: string, topic: string, onMessage: (topic: string, payload: Buffer) => void) {
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { username, password, reconnectPeriod: 0, connectTimeout: 10_000, protocolVersion: 4 });
  client.on('message', onMessage);
  const granted = await client.subscribeAsync(topic, { qos: 0 });
  if (granted.some((g) => g.qos !== 0)) throw new Error(`mqtt_fanout: SUBSCRIBE ${topic} refused: ${JSON.stringify(granted)}`);
  return client;
}

export async function mqttFanoutPhase(o: MqttFanoutOptions) {
  const label = MQTT_FANOUT_NAMES.label;
  const ready = await openUplinkLoad(o, MQTT_FANOUT_NAMES, o.rate * o.durationS, o.durationS);
  const clients: MqttClient[] = [];
  try {
    const { devices, active, air } = ready;
    const warmFrames = buildFrames(devices, active, o.warmup, false);
    const frames = buildFrames(devices, active, Math.round(o.rate * o.durationS), false);
    // The AS's work per uplink is then the MQTT fan-out's (and its events'), not the setup's webhook's.
    const del = await fetch(`${o.baseUrl}/api/v3/as/webhooks/${o.applicationId}/bench`, { method: 'DELETE', headers: o.auth });
    if (del.status !== 200) throw new Error(`${label}: DELETE webhook: HTTP ${del.status} ${await del.text()}`);
    const key = await createApplicationApiKey(o.baseUrl, o.auth, o.applicationId, 'bench-mqtt', ['RIGHT_APPLICATION_TRAFFIC_READ']);
    const topic = `v3/${o.applicationId}/devices/+/up`;
    const receipts = new Receipts(air.byFrame, air.txs, o.subscribers);
    log(`${label}: connecting ${o.subscribers} MQTT subscribers to ${topic} (AS ports ${o.mqttPorts.join(', ')})`);
    const connectStart = performance.now();
    for (let s = 0; s < o.subscribers; s++) {
      clients.push(await connectSubscriber(o.mqttPorts[s % o.mqttPorts.length], o.applicationId, key, topic, (t, p) => receipts.record(s, t, p)));
    }
    const connectS = (performance.now() - connectStart) / 1000;
    // The webhook is gone: an uplink is delivered once every subscriber has it.
    const { warm, settleS } = await warmUp(ready, o, warmFrames, label);

    log(`${label}: ${frames.length} unconfirmed uplinks at ${o.rate}/s for ${o.durationS}s to ${o.subscribers} subscribers`);
    const unknownBefore = receipts.unknown;
    const duplicatesBefore = receipts.duplicates;
    const m = await measured(air, o, frames, o.rate, isDelivered, { waitMs: DELIVERY_WAIT_MS, quietMs: 3000 });
    // Stragglers of the last uplinks.
    await sleep(200);
    const perSubscriber = new Array<number>(o.subscribers).fill(0);
    const latencies: number[] = [];
    let lastArrival = 0;
    const indexOf = (tx: Tx) => air.byFrame.get(`${devices[tx.device].deviceId}/${tx.fCnt}`) ?? -1;
    for (const tx of m.sent) {
      const arrivals = receipts.byTx.get(indexOf(tx));
      if (!arrivals) continue;
      for (const [s, at] of arrivals.entries()) {
        if (at === 0) continue;
        perSubscriber[s]++;
        latencies.push(at - (tx.firstPushAt as number));
        lastArrival = Math.max(lastArrival, at);
      }
    }
    const firstPush = Math.min(...m.sent.map((tx) => tx.firstPushAt ?? Infinity));
    const delivered = latencies.length;
    const result = {
      subscribers: o.subscribers,
      topic,
      qos: 0,
      devices: ready.figures.active_devices,
      gateways: o.gateways,
      gateway_protocol: o.protocol,
      duration_s: o.durationS,
      connect_s: round(connectS),
      ...m.figures,
      /** Messages every subscriber should have got: `sent` × `subscribers`. */
      expected: m.sent.length * o.subscribers,
      delivered,
      missing: m.sent.length * o.subscribers - delivered,
      delivered_per_subscriber: { min: Math.min(...perSubscriber), max: Math.max(...perSubscriber) },
      /** Messages per second leaving the MQTT server, first push to last arrival. */
      messages_per_s: lastArrival > firstPush ? round(delivered / ((lastArrival - firstPush) / 1000)) : 0,
      duplicates: receipts.duplicates - duplicatesBefore,
      unknown_messages: receipts.unknown - unknownBefore,
      /** From the first gateway's push of the uplink to each subscriber's receipt. */
      latency_ms: latencyFigures(latencies),
      /** CPU ms each process used per uplink sent (each fanned out to every subscriber), first push until every subscriber had it (or given up). */
      cpu_ms_per_uplink: m.cpu.msPer(m.sent.length),
      ...m.cpu.cores(),
      warmup: warm,
      settle_s: settleS,
      register_s: ready.figures.register_s,
      join_s: ready.figures.join_s,
      stack_metrics: m.stackMetrics(),
    };
    log(`${label}: ${JSON.stringify({ ...result, stack_metrics: undefined })}`);
    return result;
  } finally {
    await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
    await ready.close();
  }
}
