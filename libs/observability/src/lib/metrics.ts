import { collectDefaultMetrics, Counter, Gauge, Histogram, register } from 'prom-client';
import { type CounterSeries, type HistogramSeries, SeriesCounter, SeriesHistogram } from './series-metrics';

/**
 * Every Prometheus metric of the stack, defined once (names follow Prometheus conventions: a
 * `lorawan_` namespace, base units, `_total` counters). Each process exposes the ones its
 * components touch, plus Node's process metrics, at `GET /metrics` (gateway HTTP port,
 * components' HEALTH_PORT). RPC metrics mirror TTS's grpc-prometheus ones.
 */

/** Seconds; from 0.5 ms (an in-process call) to 10 s (the RPC timeout). */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let defaultsStarted = false;

/** Node's process metrics (CPU, memory, event loop lag, GC, handles), once per process. */
export function collectProcessMetrics(): void {
  if (defaultsStarted) return;
  defaultsStarted = true;
  collectDefaultMetrics();
}

/** Labels: method, route (the route pattern, not the path), status. */
export const httpRequests = new SeriesCounter(
  'lorawan_http_requests_total',
  'HTTP requests answered by the gateway, by method, route (the route pattern, not the path) and status.',
  ['method', 'route', 'status'],
);

/** Labels: method, route, status. */
export const httpRequestDuration = new SeriesHistogram(
  'lorawan_http_request_duration_seconds',
  'Time from receiving an HTTP request to the end of its response, by method, route and status.',
  ['method', 'route', 'status'],
  LATENCY_BUCKETS,
);

/** Labels: component, rpc, code. */
export const rpcServerHandled = new SeriesCounter(
  'lorawan_rpc_server_handled_total',
  'RPCs a component answered, by component, RPC (Service.Method) and result code (canonical code name).',
  ['component', 'rpc', 'code'],
);

/** Labels: component, rpc. */
export const rpcServerHandling = new SeriesHistogram(
  'lorawan_rpc_server_handling_seconds',
  'Time a component took to answer an RPC, from receiving it to sending the reply, by component and RPC.',
  ['component', 'rpc'],
  LATENCY_BUCKETS,
);

const inFlightSources = new Map<string, () => number>();

/** Where `lorawan_rpc_server_in_flight` of a component is read from at each scrape (its server's count). */
export function setInFlightSource(component: string, source: () => number): void {
  inFlightSources.set(component, source);
}

export const rpcServerInFlight = new Gauge({
  name: 'lorawan_rpc_server_in_flight',
  help: 'RPCs a component is serving now.',
  labelNames: ['component'] as const,
  collect() {
    for (const [component, source] of inFlightSources) this.set({ component }, source());
  },
});

/** Labels: component, rpc, code. */
export const rpcClientHandled = new SeriesCounter(
  'lorawan_rpc_client_handled_total',
  'RPCs the gateway sent to components, by component, RPC and result code (Unavailable: no responder or broker down; DeadlineExceeded: timed out).',
  ['component', 'rpc', 'code'],
);

/** Labels: component, rpc. */
export const rpcClientHandling = new SeriesHistogram(
  'lorawan_rpc_client_handling_seconds',
  'Time from sending an RPC to a component to its reply (or failure), by component and RPC.',
  ['component', 'rpc'],
  LATENCY_BUCKETS,
);

/** Labels: name. */
export const eventsPublished = new SeriesCounter('lorawan_events_published_total', 'Events a component published, by event name.', ['name']);

/** Labels: name. */
export const eventsDataOmitted = new SeriesCounter(
  'lorawan_events_data_omitted_total',
  'Traffic events a component published without their data, no events stream watching their entities (EVENTS_DATA=watched), by event name.',
  ['name'],
);

export const eventsReceived = new Counter({
  name: 'lorawan_events_received_total',
  help: 'Events the events service received for fan-out.',
});

export const eventsDelivered = new Counter({
  name: 'lorawan_events_delivered_total',
  help: 'Events the events service handed to stream sessions (one per matching stream).',
});

export const eventStreamsOpen = new Gauge({
  name: 'lorawan_event_streams_open',
  help: 'Event streams open: sessions an events replica serves, or HTTP streams a gateway holds.',
  labelNames: ['component'] as const,
});

export const webhookJobsHandedBack = new Counter({
  name: 'lorawan_webhook_jobs_handed_back_total',
  help: "Webhook jobs a replica handed back to the queue without an attempt, to come again about when their webhook's lane would reach them, by reason: lane_full (the lane's wait list was full when the job arrived), endpoint_slower (the lane's wait list shrank because its endpoint answered slower).",
  labelNames: ['reason'] as const,
});

export const webhookDeliveries = new Counter({
  name: 'lorawan_webhook_deliveries_total',
  help: 'Webhook delivery attempts by result: delivered (2xx), retry (failed, will be retried), failed (given up), dropped (webhook gone, paused or disabled for the message).',
  labelNames: ['result'] as const,
});

export const webhookDeliveryDuration = new Histogram({
  name: 'lorawan_webhook_request_duration_seconds',
  help: 'Time of one webhook HTTP request, connect to end of response (or failure).',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

let webhookQueueDepthSource: (() => Promise<number> | number) | undefined;

/** Where `lorawan_webhook_queue_depth` is read from at each scrape (the AS's job queue). */
export function setWebhookQueueDepthSource(source: (() => Promise<number> | number) | undefined): void {
  webhookQueueDepthSource = source;
}

export const webhookQueueDepth = new Gauge({
  name: 'lorawan_webhook_queue_depth',
  help: 'Webhook delivery jobs waiting in the queue (first attempts and retries, not yet acknowledged).',
  async collect() {
    if (!webhookQueueDepthSource) return;
    try {
      this.set(await webhookQueueDepthSource());
    } catch {
      // The queue cannot be asked now (broker down): the last value stays.
    }
  },
});

export const gsConnectedGateways = new Gauge({
  name: 'lorawan_gs_connected_gateways',
  help: 'Gateways connected to this Gateway Server replica, by protocol.',
  labelNames: ['protocol'] as const,
});

export const gsGatewayDisconnects = new Counter({
  name: 'lorawan_gs_gateway_disconnects_total',
  help: 'Gateway connections this Gateway Server replica ended, by protocol and reason (timeout: the gateway went silent; stopped; replaced).',
  labelNames: ['protocol', 'reason'] as const,
});

export const nsJoins = new Counter({
  name: 'lorawan_ns_join_requests_total',
  help: 'Join-requests a Network Server handled, by result: accepted (by the JS), refused (JS or device), unknown_device, duplicate (a copy of one being handled), too_late and overloaded (refused at the door: `lorawan_uplinks_shed_total`), not_scheduled (no gateway could send the join-accept).',
  labelNames: ['result'] as const,
});

export const nsDataUplinks = new Counter({
  name: 'lorawan_ns_data_uplinks_total',
  help: 'Data uplinks a Network Server handled, by result: processed, retransmission, duplicate (a copy of one being handled), no_match (no device session with a matching MIC), dropped (FCnt replayed or the device changed meanwhile), too_late and overloaded (refused at the door: `lorawan_uplinks_shed_total`).',
  labelNames: ['result'] as const,
});

export const uplinksShed = new Counter({
  name: 'lorawan_uplinks_shed_total',
  help: "Uplinks (frames, not gateway copies) a component refused at its door, before doing their work, because it could not handle them in time, by component (gs, ns, as), kind (join_request, data_uplink) and reason: overloaded (the wait ahead, or the Network Server's answers, said it would not be in time), too_late (its deadline had passed when it arrived or when its turn came).",
  labelNames: ['component', 'kind', 'reason'] as const,
});

export const gsDownlinks = new Counter({
  name: 'lorawan_gs_downlinks_total',
  help: 'Downlinks the Network Server asked a Gateway Server to send, by result: sent (PULL_RESP to the gateway), failed (too late, no downlink path, bad request).',
  labelNames: ['result'] as const,
});

export const gsDownlinksRefused = new Counter({
  name: 'lorawan_gs_downlinks_refused_total',
  help: "Downlinks not transmitted, by who refused them (scheduler: the GS's downlink scheduler, before sending; gateway: its TX acknowledgment) and reason (the scheduler's error name: too_late, conflict, duty_cycle, dwell_time, tx_schedule (no class A window), sub_band_not_found, no_gps_sync, …; the gateway's result in lower case: collision_packet, too_late, too_early, collision_beacon, tx_freq, tx_power, gps_unlocked, …).",
  labelNames: ['by', 'reason'] as const,
});

export const gsLbsAuthRefused = new Counter({
  name: 'lorawan_gs_lbs_auth_refused_total',
  help: 'Basics Station discoveries and data connections the Gateway Server refused (429) before asking the Identity Server about their key, by reason: failures (their address failed to authenticate GS_LBS_AUTH_FAILURES_PER_MIN times within the minute), pending (GS_LBS_AUTH_MAX_PENDING authentications were in progress).',
  labelNames: ['reason'] as const,
});

/** One gateway sub-band's duty cycle as its scheduler counts it. */
export interface SubBandUtilization {
  band_id: string;
  /** `<min Hz>-<max Hz>`. */
  sub_band: string;
  /** The fraction of the last window it was on the air. */
  utilization: number;
  /** Its duty cycle (1: none). */
  limit: number;
}

let gsSubBandUtilizationSource: (() => SubBandUtilization[]) | undefined;

/** Where `lorawan_gs_sub_band_utilization` is read from at each scrape (the GS's gateway schedulers). */
export function setGsSubBandUtilizationSource(source: (() => SubBandUtilization[]) | undefined): void {
  gsSubBandUtilizationSource = source;
}

export const gsSubBandUtilization = new Gauge({
  name: 'lorawan_gs_sub_band_utilization',
  help: "Downlink duty-cycle utilization of the gateways' sub-bands over the sliding window (GS_DUTY_CYCLE_WINDOW_MS), as a fraction of the time, by band, sub-band (`<min Hz>-<max Hz>`) and aggregate over this replica's gateways: max (the busiest gateway), mean, limit (the sub-band's duty cycle). One series per sub-band, not per gateway (a gateway's own figures are in its connection stats).",
  labelNames: ['band_id', 'sub_band', 'aggregate'] as const,
  collect() {
    this.reset();
    if (!gsSubBandUtilizationSource) return;
    const by = new Map<string, { band_id: string; sub_band: string; max: number; sum: number; n: number; limit: number }>();
    for (const row of gsSubBandUtilizationSource()) {
      const key = `${row.band_id} ${row.sub_band}`;
      const agg = by.get(key) ?? { band_id: row.band_id, sub_band: row.sub_band, max: 0, sum: 0, n: 0, limit: row.limit };
      agg.max = Math.max(agg.max, row.utilization);
      agg.sum += row.utilization;
      agg.n++;
      by.set(key, agg);
    }
    for (const agg of by.values()) {
      const labels = { band_id: agg.band_id, sub_band: agg.sub_band };
      this.set({ ...labels, aggregate: 'max' }, agg.max);
      this.set({ ...labels, aggregate: 'mean' }, agg.sum / agg.n);
      this.set({ ...labels, aggregate: 'limit' }, agg.limit);
    }
  },
});

export const gsUplinks = new Counter({
  name: 'lorawan_gs_uplinks_total',
  help: 'Uplinks a Gateway Server received from gateways, by result: forwarded (to the NS), dropped (CRC failed, NS refused or away).',
  labelNames: ['result'] as const,
});

let gsNsInFlightSource: (() => { limit: number; in_flight: number }) | undefined;

/** Where `lorawan_gs_ns_in_flight` reads the GS's calls in flight to the NS and their adaptive limit (the GS's UplinksService). */
export function setGsNsInFlightSource(source: (() => { limit: number; in_flight: number }) | undefined): void {
  gsNsInFlightSource = source;
}

export const gsNsInFlight = new Gauge({
  name: 'lorawan_gs_ns_in_flight',
  help: 'Frames a Gateway Server has in flight to the Network Server (`in_flight`) and the adaptive limit it keeps on them (`limit`: lowered when the NS refuses frames for its own load, frames beyond it are shed at the GS).',
  labelNames: ['value'] as const,
  collect() {
    const now = gsNsInFlightSource?.();
    if (!now) return;
    this.set({ value: 'limit' }, now.limit);
    this.set({ value: 'in_flight' }, now.in_flight);
  },
});

export const gsDatagramsDropped = new Counter({
  name: 'lorawan_gs_udp_dropped_total',
  help: 'Semtech UDP datagrams (or rxpk items) dropped before any processing, by reason (malformed, flood filter, unknown token; unknown_gateway, lookup_throttled and lookup_failed for datagrams of EUIs without a connection).',
  labelNames: ['reason'] as const,
});

export const gsGatewayLookups = new Counter({
  name: 'lorawan_gs_gateway_lookups_total',
  help: 'Gateway EUIs a Gateway Server replica looked up in the Identity Server (GsIs.GetGatewayForEUI), by result: found, not_found, failed; throttled: not asked, over GS_UNKNOWN_EUI_LOOKUPS_PER_SEC.',
  labelNames: ['result'] as const,
});

export const integrationPublishFailures = new Counter({
  name: 'lorawan_as_integration_publish_failures_total',
  help: 'Application messages an Application Server integration could not take (its publish failed), by integration (webhooks, …); the other integrations still got them.',
  labelNames: ['integration'] as const,
});

export const mqttConnections = new Gauge({
  name: 'lorawan_as_mqtt_connections',
  help: "MQTT clients connected to this Application Server replica's MQTT server, by transport (tcp, tls, ws: a WebSocket of the gateway in this process).",
  labelNames: ['transport'] as const,
});

export const mqttConnectsRefused = new Counter({
  name: 'lorawan_as_mqtt_connects_refused_total',
  help: 'MQTT CONNECTs this Application Server replica refused, by reason: bad_credentials (wrong or unknown key), not_authorized (no right on the application), identifier_rejected, unavailable (the Identity Server could not answer), busy (MQTT_AUTH_MAX_PENDING CONNECTs were being checked).',
  labelNames: ['reason'] as const,
});

export const mqttMessages = new Counter({
  name: 'lorawan_as_mqtt_messages_total',
  help: 'MQTT server messages of this AS replica, by direction: `in` (PUBLISH from clients: downlinks), `out` (PUBLISH to clients, redeliveries included), `dropped` (a persistent session full, or its messages expired).',
  labelNames: ['direction'] as const,
});

export const storedUps = new Counter({
  name: 'lorawan_as_storage_messages_total',
  help: "Application messages of the Storage Integration, by outcome: `stored` (written), `dropped` (its buffer was full, or its batch's writes kept failing), `retried` (in a batch whose write failed and was tried again).",
  labelNames: ['outcome'] as const,
});

export const storageRetentionDeletes = new Counter({
  name: 'lorawan_as_storage_retention_deletes_total',
  help: 'Stored application messages the Storage Integration deleted because they were older than `AS_STORAGE_RETENTION_DAYS`.',
});

export const pubsubMessages = new Counter({
  name: 'lorawan_as_pubsub_messages_total',
  help: "Messages of the Pub/Sub integrations, by provider (nats, mqtt) and result: `published` (handed to the broker's client), `dropped` (the connection was down: not buffered), `failed` (the publish itself failed), `downlink` (a downlink operation received and queued), `downlink_invalid` (received and refused).",
  labelNames: ['provider', 'result'] as const,
});

let pubsubConnectedSource: (() => Array<{ provider: string; connected: number; total: number }>) | undefined;

/** Where `lorawan_as_pubsub_connected` / `_connections` are read from at each scrape (the AS replica's Pub/Sub connections). */
export function setPubSubConnectedSource(source: typeof pubsubConnectedSource): void {
  pubsubConnectedSource = source;
}

export const pubsubConnected = new Gauge({
  name: 'lorawan_as_pubsub_connected',
  help: "Pub/Sub integrations this AS replica is connected to the user's broker for, by provider.",
  labelNames: ['provider'] as const,
  collect() {
    for (const { provider, connected } of pubsubConnectedSource?.() ?? []) this.set({ provider }, connected);
  },
});

export const pubsubConnections = new Gauge({
  name: 'lorawan_as_pubsub_connections',
  help: 'Pub/Sub integrations this AS replica runs (connected or trying to), by provider.',
  labelNames: ['provider'] as const,
  collect() {
    for (const { provider, total } of pubsubConnectedSource?.() ?? []) this.set({ provider }, total);
  },
});

export const formatterRuns = new Counter({
  name: 'lorawan_as_formatter_runs_total',
  help: 'JavaScript payload-formatter runs of an Application Server, by result: ok, the failure (timeout, memory, stack, output_too_large, output_too_deep, runtime, interrupt), busy (refused: the queues were full) or suspended (refused: the application spent its runaway budget).',
  labelNames: ['result'] as const,
});

export const formatterWorkersReplaced = new Counter({
  name: 'lorawan_as_formatter_workers_replaced_total',
  help: 'Formatter worker threads an Application Server terminated or lost and started again (a run over its time limit, out of memory, a broken sandbox).',
});

export const mqttWebSockets = new Gauge({
  name: 'lorawan_http_mqtt_websockets',
  help: 'MQTT-over-WebSocket clients connected through this gateway, by where they are served: `in_process` (the AS of this process) or `tcp` (piped to MQTT_WS_UPSTREAM; that AS counts them as `lorawan_as_mqtt_connections{transport="tcp"}`).',
  labelNames: ['upstream'] as const,
});

export const mqttWebSocketsRefused = new Counter({
  name: 'lorawan_http_mqtt_websockets_refused_total',
  help: 'MQTT-over-WebSocket upgrades the gateway refused, by reason: `subprotocol` (no `mqtt` offered), `unavailable` (the MQTT server could not be reached, or none is configured), `handshake` (a malformed WebSocket handshake).',
  labelNames: ['reason'] as const,
});

export const httpConnectionsRefused = new Counter({
  name: 'lorawan_http_connections_refused_total',
  help: 'Connections the gateway closed as they arrived: their address had HTTP_MAX_CONNECTIONS_PER_ADDRESS open already.',
});

export const natsConnectionUp = new Gauge({
  name: 'lorawan_nats_connected',
  help: '1 while the process is connected to NATS, 0 while it is reconnecting.',
});

/** The Prometheus text exposition of every metric of the process. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: register.contentType, body: await register.metrics() };
}

/**
 * The metrics of one RPC, served (`lorawan_rpc_server_*`) or sent (`lorawan_rpc_client_*`): its
 * duration and a count by result code, each series resolved once.
 */
export class RpcMetrics {
  private readonly byCode = new Map<string, CounterSeries>();
  private readonly duration: HistogramSeries;

  private constructor(
    private readonly handled: SeriesCounter,
    handling: SeriesHistogram,
    private readonly component: string,
    private readonly rpc: string,
  ) {
    this.duration = handling.with(component, rpc);
  }

  static served(component: string, rpc: string): RpcMetrics {
    return new RpcMetrics(rpcServerHandled, rpcServerHandling, component, rpc);
  }

  static sent(component: string, rpc: string): RpcMetrics {
    return new RpcMetrics(rpcClientHandled, rpcClientHandling, component, rpc);
  }

  /** One RPC answered with `code` (a canonical code name) after `seconds`. */
  record(code: string, seconds: number): void {
    let count = this.byCode.get(code);
    if (!count) this.byCode.set(code, (count = this.handled.with(this.component, this.rpc, code)));
    count.inc();
    this.duration.observe(seconds);
  }
}
