import 'reflect-metadata';
import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, validateSync } from 'class-validator';
import { PUBLIC_ADDRESS_PATTERN } from '@lorawan/api';
import { Setting } from './setting.decorator';

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
const toBool = ({ value }: { value: unknown }) => (value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value);
const MYSQL_URL = /^mysql:\/\/.+$/;
const KEK_LABEL = /^[A-Za-z0-9_.:-]{1,2048}$/;

/**
 * The environment, validated once at boot. Only `loadConfig` reads it; everything else receives
 * the typed `StackConfig`. Names are fixed by ARCHITECTURE.md. Each setting is documented by its
 * `@Setting` (section and description; the initializer is its default): `npm run docs:config`
 * writes `docs/configuration.md` from them, and a spec fails when the page or a description lags.
 */
export class Environment {
  @Setting('gateway', "The gateway's HTTP port: the API under `/api/v3`, the console, `/healthz`, `/readyz` and `/metrics`.")
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  HTTP_PORT = 1885;

  @Setting(
    'process',
    'Components serve `/healthz` (liveness), `/readyz` (transport + database, false while shutting down) and `/metrics` (Prometheus) here when set.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  HEALTH_PORT?: number;

  @Setting(
    'transport',
    '`nats://host:4222` (or `tls://`, `ws://`, `wss://`): the components talk over this NATS. Unset: the in-process transport (embedded; only the `stack` app).',
    { default: 'unset (in-process)' },
  )
  @IsOptional()
  @IsString()
  @Matches(/^(nats|tls|ws|wss):\/\/.+/, { message: 'NATS_URL must be a nats:// URL' })
  NATS_URL?: string;

  @Setting('transport', 'Prefix for every subject, so several stacks can share one NATS (the tests use it).')
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'NATS_SUBJECT_PREFIX may hold letters, digits, - and _' })
  NATS_SUBJECT_PREFIX?: string;

  @Setting(
    'transport',
    "PEM file of the CA(s) the NATS server's certificate is verified against. With it (or a `tls://` URL, then verified against the system's CAs) every NATS connection of the process uses TLS: RPC, pub/sub, JetStream queues, KV and history.",
  )
  @IsOptional()
  @IsString()
  NATS_TLS_CA_FILE?: string;

  @Setting('transport', 'Client certificate (PEM) for a NATS server that verifies clients (mutual TLS); with `NATS_TLS_KEY_FILE`.')
  @IsOptional()
  @IsString()
  NATS_TLS_CERT_FILE?: string;

  @Setting('transport', 'The key (PEM) of `NATS_TLS_CERT_FILE`.')
  @IsOptional()
  @IsString()
  NATS_TLS_KEY_FILE?: string;

  @Setting(
    'transport',
    "The process's NATS user (one per component and the gateway, from `npm run nats-config`); its replies come on `_INBOX_<user>.>`. Unset: anonymous, replies on `_INBOX.>`.",
  )
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'NATS_USER may hold letters, digits, - and _' })
  NATS_USER?: string;

  @Setting('transport', 'The password of `NATS_USER` (in the `<user>.env` file `npm run nats-config` writes).')
  @IsOptional()
  @IsString()
  NATS_PASSWORD?: string;

  @Setting('database', 'Embedded data: SQLite files (one per component, and `events.sqlite`: the event history) and the generated admin key (`admin-api-key`).')
  @IsOptional()
  @IsString()
  DATA_DIR = './data';

  @Setting('database', "The IS's database, `mysql://user:pass@host:3306/db` (one database per component). Unset: the SQLite file `<DATA_DIR>/is.sqlite`.", {
    default: 'unset (SQLite)',
  })
  @IsOptional()
  @Matches(MYSQL_URL, { message: 'IS_DATABASE_URL must be a mysql:// URL' })
  IS_DATABASE_URL?: string;

  @Setting('database', "The JS's database, `mysql://user:pass@host:3306/db` (one database per component). Unset: the SQLite file `<DATA_DIR>/js.sqlite`.", {
    default: 'unset (SQLite)',
  })
  @IsOptional()
  @Matches(MYSQL_URL, { message: 'JS_DATABASE_URL must be a mysql:// URL' })
  JS_DATABASE_URL?: string;

  @Setting('database', "The NS's database, `mysql://user:pass@host:3306/db` (one database per component). Unset: the SQLite file `<DATA_DIR>/ns.sqlite`.", {
    default: 'unset (SQLite)',
  })
  @IsOptional()
  @Matches(MYSQL_URL, { message: 'NS_DATABASE_URL must be a mysql:// URL' })
  NS_DATABASE_URL?: string;

  @Setting('database', "The AS's database, `mysql://user:pass@host:3306/db` (one database per component). Unset: the SQLite file `<DATA_DIR>/as.sqlite`.", {
    default: 'unset (SQLite)',
  })
  @IsOptional()
  @Matches(MYSQL_URL, { message: 'AS_DATABASE_URL must be a mysql:// URL' })
  AS_DATABASE_URL?: string;

  @Setting(
    'identity',
    "The bootstrap admin user's bearer key (≥ 16 characters, no spaces), checked by the IS: set it on the IS. Without it the embedded stack generates one and stores it in `<DATA_DIR>/admin-api-key` (never logged).",
  )
  @IsOptional()
  @IsString()
  @Matches(/^\S{16,}$/, { message: 'ADMIN_API_KEY must be at least 16 characters without spaces' })
  ADMIN_API_KEY?: string;

  @Setting('identity', "ID of the bootstrap admin user the IS creates on first start; `ADMIN_API_KEY` is that user's key, with `RIGHT_ALL`.")
  @IsOptional()
  @Matches(/^[a-z0-9](?:[-]?[a-z0-9]){2,}$/, { message: 'ADMIN_USER_ID must be a user ID' })
  @MaxLength(36)
  ADMIN_USER_ID = 'admin';

  @Setting(
    'gateway',
    "How long the gateway reuses a resolved caller and its rights (per credential and entity); 0 disables. Never past the key's `expires_at`: from that instant the IS is asked again (and refuses it). Key and entity changes invalidate at once.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(300000)
  AUTH_CACHE_TTL_MS = 5000;

  @Setting('events', "How long events stay available for `tail`/`after` (the JetStream `EVENTS` stream's max age; the embedded history's too).")
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(30 * 86_400_000)
  EVENTS_RETENTION_MS = 86_400_000;

  @Setting(
    'events',
    'Events the embedded history keeps (in `<DATA_DIR>/events.sqlite`, oldest dropped first), and the most a history query reads (distributed: JetStream messages, each one event or a batch of them).',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  EVENTS_HISTORY_MAX = 10_000;

  @Setting('events', "Distributed: the JetStream `EVENTS` stream's `max_bytes` (its oldest events are dropped beyond it).")
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024 * 1024)
  @Max(Number.MAX_SAFE_INTEGER)
  EVENTS_HISTORY_MAX_BYTES = 1024 ** 3;

  @Setting(
    'events',
    "Distributed mode. `watched`: a traffic event's data (the frame and its metadata of `gs.up.receive`, `ns.up.data.*`, `as.up.data.forward`, downlinks, …) is written only while an events stream watches one of its entities (the events replicas' heartbeats say which), else the event is published without it, and history keeps it so; `always`: every event with its data (more CPU and broker traffic per uplink). Embedded mode always writes the data.",
  )
  @IsOptional()
  @IsIn(['watched', 'always'])
  EVENTS_DATA: 'watched' | 'always' = 'watched';

  @Setting('events', 'Messages a stream may have queued in the events service for a slow subscriber before it is ended with `buffer_full`.')
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  EVENTS_STREAM_BUFFER = 1000;

  @Setting(
    'gateway',
    'HTTP API and CUPS (`POST /update-info`) requests one API key (by its ID) may make per minute on a gateway process; beyond, 429 `rate_limit_exceeded` with `Retry-After`. 0: no limit.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100_000_000)
  RATE_LIMIT_API_KEY_PER_MIN = 60_000;

  @Setting(
    'gateway',
    'HTTP API and CUPS (`POST /update-info`) requests one source address may make per minute on a gateway process, whatever its credentials (the probes, the console and `/metrics` are not counted). 0: no limit.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100_000_000)
  RATE_LIMIT_ADDRESS_PER_MIN = 120_000;

  @Setting(
    'gateway',
    "A request's headers and body must have arrived this long after it began, else 408 and the connection closes (a body sent byte by byte, a connection that sends nothing; checked every quarter of it, at most every second). Responses are not timed: event streams last. 0: no limit (headers still within 60 s).",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  HTTP_REQUEST_TIMEOUT_MS = 60_000;

  @Setting(
    'gateway',
    "A connection kept alive without a request in progress is closed after this long (about a second more: Node's grace). Above the 60 s idle timeout of common balancers, so they close first.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  HTTP_IDLE_TIMEOUT_MS = 72_000;

  @Setting(
    'gateway',
    'Connections one client address may have open at once on a gateway process; one more is closed as it arrives (`lorawan_http_connections_refused_total`). 0: no limit (behind a balancer or proxy, where every client has its address).',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  HTTP_MAX_CONNECTIONS_PER_ADDRESS = 256;

  @Setting(
    'gateway',
    'A body over the limit is read and discarded up to this many bytes before its 413, so a client that sends it whole reads the answer; a longer one is answered at once and the connection closed. `Expect: 100-continue` clients are answered before they send it, whatever its size.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1 << 30)
  HTTP_OVERSIZED_BODY_DRAIN_BYTES = 16 * 1024 * 1024;

  @Setting('gateway', 'Event streams one credential may have open at once on a gateway process; one more is refused with 429 `too_many_streams`. 0: no limit.')
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  EVENTS_MAX_STREAMS_PER_KEY = 100;

  @Setting(
    'webhooks',
    'Public base URL of the HTTP API (`…/api/v3`): the AS builds webhook `X-Downlink-Push`/`X-Downlink-Replace` from it and `X-Tts-Domain` from its host. Set it on the AS.',
    { default: '`http://localhost:<HTTP_PORT>/api/v3`' },
  )
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'PUBLIC_URL must be an absolute http(s) URL' })
  PUBLIC_URL?: string;

  @Setting('webhooks', 'SSRF guard switch: allow webhook destinations in loopback, private, link-local and other non-public ranges.')
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE_NETWORKS = false;

  @Setting('gs', "The Gateway Server's Semtech UDP port (0: any free port, logged at start).")
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  GS_UDP_PORT = 1700;

  @Setting('gs', "The address the Gateway Server's UDP socket binds.")
  @IsOptional()
  @IsString()
  GS_UDP_HOST = '0.0.0.0';

  @Setting(
    'gs',
    "The Gateway Server's LoRa Basics Station (LNS) port: plain WebSocket (`ws://`), `/router-info` and `/traffic/eui-<EUI>` (0: any free port, logged at start). Station sends its `tc.key` only over `wss://` (`GS_LBS_TLS_PORT`).",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  GS_LBS_PORT = 1887;

  @Setting('gs', "The address the Gateway Server's Basics Station listeners (`GS_LBS_PORT`, `GS_LBS_TLS_PORT`) bind.")
  @IsOptional()
  @IsString()
  GS_LBS_HOST = '0.0.0.0';

  @Setting(
    'gs',
    "The Gateway Server's LoRa Basics Station port over TLS (`wss://`), served when `GS_LBS_TLS_CERT_FILE` and `GS_LBS_TLS_KEY_FILE` are set (0: any free port).",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  GS_LBS_TLS_PORT = 8887;

  @Setting(
    'gs',
    'Certificate (chain, PEM) of the Basics Station `wss://` listener, read at start; with `GS_LBS_TLS_KEY_FILE`. The gateway checks it with its `tc.trust` (station checks the host name, not an IP address).',
  )
  @IsOptional()
  @IsString()
  GS_LBS_TLS_CERT_FILE?: string;

  @Setting('gs', 'The key (PEM) of `GS_LBS_TLS_CERT_FILE`.')
  @IsOptional()
  @IsString()
  GS_LBS_TLS_KEY_FILE?: string;

  @Setting(
    'gs',
    'The Gateway Server pings every Basics Station gateway this often (ms, WebSocket ping; TTS 30 s); a gateway that leaves `GS_LBS_MISSED_PONGS` pings in a row unanswered is disconnected (`missed_too_many_pongs`).',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  GS_LBS_PING_INTERVAL_MS = 30_000;

  @Setting(
    'gs',
    'Pings a Basics Station gateway may leave unanswered in a row (TTS 2): it is disconnected at the next ping after that many, at most (this + 1) × `GS_LBS_PING_INTERVAL_MS` after it went silent.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  GS_LBS_MISSED_PONGS = 2;

  @Setting(
    'gs',
    'Failed Basics Station authentications (a refused key, no rights, an unknown EUI) one remote address may have per minute on a GS replica, its attempts in progress included; beyond, its discoveries and data connections are refused with 429 `rate_limit_exceeded` before the Identity Server is asked (each key check costs the IS a hash). 0: no limit.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  GS_LBS_AUTH_FAILURES_PER_MIN = 30;

  @Setting(
    'gs',
    'Basics Station authentications in progress at once on a GS replica (each asks the Identity Server); beyond, 429 `too_many_pending_authorizations`. 0: no limit.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  GS_LBS_AUTH_MAX_PENDING = 64;

  @Setting(
    'gs',
    "Copies of one frame that several gateways of this GS hear within this window go to the NS in one `GsNs.HandleUplink` (every copy's metadata and correlation ID; 0: each copy alone, as TTS's GS). The NS merges across GS replicas anyway; this spares it a call per extra copy.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(200)
  GS_UPLINK_COALESCE_MS = 20;

  @Setting(
    'gs',
    'Frames this GS may have in flight to the Network Server at most. The limit it keeps adapts below this: every answered call raises it by 1/limit; calls the NS refused as overloaded lower it by a tenth, at most once per 50 ms (never below 16), and a frame that finds it reached is shed at once, before its events and its call (counted in `lorawan_uplinks_shed_total{component="gs"}`, with a `gs.up.drop` event at a bounded rate): when the NS sheds load, its GSs shed it first, where it costs least.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(4)
  @Max(100_000)
  GS_NS_MAX_IN_FLIGHT = 256;

  @Setting(
    'gs',
    "The UDP socket's receive buffer in bytes (SO_RCVBUF, capped by the kernel at `net.core.rmem_max`; 0: the system's default): datagrams wait there while the GS is busy (a GC pause, a burst). Linux's default (~208 KB) holds about 40 ms of four gateways at 1000 frames/s, so a pause of the event loop lost whole frames; raise `net.core.rmem_max` where it is lower.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1 << 30)
  GS_UDP_RECEIVE_BUFFER = 4 * 1024 * 1024;

  @Setting(
    'gs',
    "A Semtech UDP gateway from which no datagram came for this long (ms) is disconnected (`gs.gateway.disconnect` with reason `timeout`), at most a second later (the connections are swept every second). A packet forwarder sends a PULL_DATA keepalive every 10 s (`keepalive_interval`) and a status every 30 s, so the default misses six keepalives and two statuses; TTS's `connection-expires` is 3 min.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  GS_UDP_CONNECTION_TIMEOUT_MS = 60_000;

  @Setting(
    'gs',
    "How often (ms) at most the Gateway Server sets a gateway's antenna location in the IS from its status messages, for gateways whose `update_location_from_status` is set (TTS's `update-gateway-location-debounce-time`, one hour); only a location that changed is sent, the first at once.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  GS_UPDATE_GATEWAY_LOCATION_DEBOUNCE_MS = 3_600_000;

  @Setting('gs', 'Refuse gateways the IS does not know (they are still acked); `false` connects them as `eui-<eui>` with the fallback plan.')
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  GS_REQUIRE_REGISTERED_GATEWAYS = true;

  @Setting(
    'gs',
    "Enforce each gateway's sub-band duty cycle (its frequency plans' limits, TTS's priority ceilings) in the downlink scheduler; `false` still counts airtime (metrics) but refuses nothing for it. Turn off only where the law allows it.",
  )
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  GS_ENFORCE_DUTY_CYCLE = true;

  @Setting(
    'gs',
    "The sliding window (ms) a sub-band's duty cycle is enforced in (ETSI and TTS: one hour). Shorter windows spread airtime more evenly; tests use short ones to reach the limit quickly.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  GS_DUTY_CYCLE_WINDOW_MS = 3_600_000;

  @Setting('gs', 'The frequency plan of unregistered gateways (a plan ID of the catalogue; without one they are refused).')
  @IsOptional()
  @Matches(/^[A-Z0-9_]{1,64}$/, { message: 'GS_FALLBACK_FREQUENCY_PLAN must be a frequency plan ID' })
  GS_FALLBACK_FREQUENCY_PLAN?: string;

  @Setting(
    'gs',
    'Gateway EUIs the IS does not know that a GS replica remembers (least recently seen forgotten first; about 100 bytes each); their datagrams cost no lookup. 0: none remembered.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  GS_UNKNOWN_EUI_CACHE_SIZE = 65_536;

  @Setting(
    'gs',
    "How long an unknown EUI is remembered. A gateway registered later connects with its next datagram (the IS's `gateway.create`, `.update` or `.restore` makes every replica forget its EUI), after this long at the latest.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  GS_UNKNOWN_EUI_CACHE_TTL_MS = 300_000;

  @Setting(
    'gs',
    'IS lookups (`GsIs.GetGatewayForEUI`) a GS replica makes per second at most, for EUIs it has no connection of (one second\'s worth at once); datagrams beyond are dropped (`lorawan_gs_udp_dropped_total{reason="lookup_throttled"}`), so a flood of random EUIs costs the IS this rate per replica. 0: no limit.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  GS_UNKNOWN_EUI_LOOKUPS_PER_SEC = 100;

  @Setting('ns', "The Network Server's NetID (6 hex digits): joined devices get DevAddrs of its prefix (`000013` → `26000000/7`).")
  @IsOptional()
  @Matches(/^[0-9A-Fa-f]{6}$/, { message: 'NS_NET_ID must be 6 hex digits' })
  NS_NET_ID = '000000';

  @Setting(
    'ns',
    "DevAddr prefixes to allocate from instead of the NetID's, comma-separated (`26011000/20,26012000/20`; one is picked in proportion to its size). Checked at start.",
  )
  @IsOptional()
  @Matches(/^[0-9A-Fa-f]{8}\/\d{1,2}(,[0-9A-Fa-f]{8}\/\d{1,2})*$/, {
    message: 'NS_DEV_ADDR_PREFIXES must be a comma-separated list of DevAddr prefixes (26000000/7)',
  })
  NS_DEV_ADDR_PREFIXES?: string;

  @Setting(
    'ns',
    "Uplinks the NS keeps in `mac_state.recent_uplinks` and the device's `recent_uplinks` (TTS: 20; `recent_adr_uplinks` holds at most 20 whatever this says).",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  NS_RECENT_UPLINKS = 20;

  @Setting('ns', 'Data uplinks one NS matches and writes at a time; the others wait their turn in arrival order, within `NS_UPLINK_DEADLINE_MS` (see there).')
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10000)
  NS_UPLINK_CONCURRENCY = 32;

  @Setting(
    'ns',
    'Admission of data uplinks: an uplink must start its handling (device lookup, MIC, write) within this many ms of the GS receiving it. One that cannot (its wait behind the queued uplinks, at the recent pace, would take it past this) is refused at once, before any work (`ResourceExhausted`, counted in `lorawan_uplinks_shed_total`), and so is one that is already older (`uplink_too_late`): under more load than it can take, the NS does in time what it can instead of everything too late. Uplinks whose receive windows have passed are still handled within it (their data is worth delivering; they get no downlink).',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(50)
  @Max(60_000)
  NS_UPLINK_DEADLINE_MS = 400;

  @Setting(
    'ns',
    'Join-requests one NS handles at a time (device lookup, the Join Server, the pending session written); the others wait their turn within `NS_JOIN_DEADLINE_MS`.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10000)
  NS_JOIN_CONCURRENCY = 16;

  @Setting(
    'ns',
    "Admission of join-requests: a join-request must start its handling within this many ms of the GS receiving it, else it is refused before the Join Server is asked (as data uplinks, `NS_UPLINK_DEADLINE_MS`). A shed join costs the device one retry; a join-accept that misses its receive windows costs the device its retry and the network the JS's work, a DevNonce and a session.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(50)
  @Max(5000)
  NS_JOIN_DEADLINE_MS = 500;

  @Setting(
    'as',
    'Application messages of the Network Server (`NsAs.HandleUplink`: data uplinks and join-accepts) one AS handles at a time; the others wait their turn within `AS_UPLINK_DEADLINE_MS`.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10000)
  AS_UPLINK_CONCURRENCY = 64;

  @Setting(
    'as',
    'Admission of the Network Server\'s application messages: one that cannot start within this many ms of reaching the AS (judging by the queue ahead of it and the recent pace) is refused at once, before its device is read or its payload decoded (`ResourceExhausted`, counted in `lorawan_uplinks_shed_total{component="as"}`; the NS takes the refusals as pushback and refuses a share of data uplinks at its door). With the NS\'s 200 ms merge window before it and the webhook request after it, 400 ms keeps what the AS admits within the second an uplink may take end to end; at 2000 ms a saturated AS whose webhooks kept up queued uplinks for over a second. When the formatter workers are the bottleneck, an uplink goes on undecoded instead (`FORMATTER_QUEUE`).',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(50)
  @Max(60_000)
  AS_UPLINK_DEADLINE_MS = 400;

  @Setting(
    'as',
    'Admission of data uplinks by how far the webhook deliveries are behind: while the AS is busy (its event loop at least 80 % utilized) and first attempts wait longer than this between reaching the AS and being sent (for each webhook its worst wait of the last half second, then the smallest over the webhooks: one slow endpoint does not count), the AS refuses a share of new data uplinks at its door, none at this wait and every one from twice it (`ResourceExhausted`, `lorawan_uplinks_shed_total{component="as",reason="webhooks_behind"}`), so the queue drains and what is delivered stays on time. 0 turns it off.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60_000)
  AS_WEBHOOK_LAG_SHED_MS = 400;

  @Setting(
    'ns',
    "How many devices' latest records the NS keeps, by session DevAddr. The next uplink of such a device is matched on its record without asking the database and written in one statement that succeeds only while the device is still stored at that revision. When another replica's or an API write changed the device since, or another device sent the frame, the NS reads the candidates, leaving out the document of a device that is unchanged. About 26 KB of heap each with 20 recent uplinks from four gateways (~100 MB for the default); 0 turns it off.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  NS_DEVICE_CACHE_SIZE = 4096;

  @Setting('ns', 'Downlinks the NS keeps in `mac_state.recent_downlinks` (TTS keeps 5).')
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  NS_RECENT_DOWNLINKS = 5;

  @Setting(
    'as',
    "How many devices' latest records the AS keeps, by application and device ID, to handle their next uplink or downlink report without reading their document again (the read still asks the database, in the same statement, whether the device changed since: another replica's or an API write makes it read the document). Typically one to a few KB of heap each (sessions, formatter settings), up to the size of a device's own formatter scripts; 0 turns it off.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  AS_DEVICE_CACHE_SIZE = 4096;

  @Setting(
    'storage',
    'Storage Integration: how many days the AS keeps the application messages it stores (of applications and devices with a `storage-integration` association); older ones are deleted every `AS_STORAGE_RETENTION_INTERVAL_MS`, a bounded batch at a time. 0: kept until deleted by hand.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(36_500)
  AS_STORAGE_RETENTION_DAYS = 30;

  @Setting('storage', 'Storage Integration: how often each AS deletes the stored messages past `AS_STORAGE_RETENTION_DAYS` (also once at start).')
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  AS_STORAGE_RETENTION_INTERVAL_MS = 60_000;

  @Setting(
    'storage',
    'Storage Integration: messages waiting for their batched write at most (one multi-row INSERT every few ms); beyond, new messages are not stored (logged and counted) so that the uplink path never waits on the database.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  AS_STORAGE_BUFFER_MAX = 10_000;

  @Setting(
    'pubsub',
    'Pub/Sub integrations: subscribe to the MQTT downlink topics as shared subscriptions (`$share/<AS_PUBSUB_SHARE_GROUP>/<topic>`, MQTT 5 and mosquitto 2, EMQX, HiveMQ…), so that each downlink is queued once however many AS replicas run. Turn off for brokers without them: every replica then subscribes and a downlink is queued by each. NATS downlink subjects always use a queue group of that name.',
  )
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  AS_PUBSUB_SHARED_SUBSCRIPTIONS = true;

  @Setting('pubsub', 'Pub/Sub integrations: the shared-subscription group (MQTT) and queue group (NATS) of the AS replicas on the downlink topics.')
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'AS_PUBSUB_SHARE_GROUP must be 1 to 64 letters, digits, _ or -' })
  AS_PUBSUB_SHARE_GROUP = 'lorawan-as';

  @Setting('pubsub', "Pub/Sub integrations: the longest wait between two attempts to reach a user's broker (the wait doubles from 1 s up to this).")
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  AS_PUBSUB_RECONNECT_MAX_MS = 60_000;

  @Setting(
    'mqtt',
    "The Application Server's MQTT server port (TTS's MQTT Server API: MQTT 3.1.1 and 5 over TCP; 0: any free port, logged at start). Every AS replica listens on it. When it is not set and 1883 is taken (a local mosquitto), the AS logs an error and runs without the MQTT TCP listener; when it is set, a port it cannot bind stops the AS.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  MQTT_PORT = 1883;

  @Setting('mqtt', 'The address the MQTT server (TCP and TLS) binds.')
  @IsOptional()
  @IsString()
  MQTT_HOST = '0.0.0.0';

  @Setting(
    'mqtt',
    'The MQTT server over TLS (MQTTS) listens here when `MQTT_TLS_CERT_FILE` and `MQTT_TLS_KEY_FILE` are set (0: any free port, logged at start).',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  MQTT_TLS_PORT = 8883;

  @Setting('mqtt', "The MQTT server's TLS certificate (PEM, with its chain); with `MQTT_TLS_KEY_FILE` it turns on `MQTT_TLS_PORT`.")
  @IsOptional()
  @IsString()
  MQTT_TLS_CERT_FILE?: string;

  @Setting('mqtt', 'The key (PEM) of `MQTT_TLS_CERT_FILE`.')
  @IsOptional()
  @IsString()
  MQTT_TLS_KEY_FILE?: string;

  @Setting(
    'mqtt',
    "The MQTT server's public address (`host:port`) that the console shows and `GET /api/v3/as/applications/{id}/mqtt-connection-info` answers (TTS `as.mqtt.public-address`). Unset: the host of `PUBLIC_URL` (default `localhost`) with the port the server listens on.",
  )
  @IsOptional()
  @Matches(PUBLIC_ADDRESS_PATTERN, { message: 'MQTT_PUBLIC_ADDRESS must be host[:port]' })
  MQTT_PUBLIC_ADDRESS?: string;

  @Setting(
    'mqtt',
    "The MQTT server's public TLS address (`host:port`, TTS `as.mqtt.public-tls-address`). Unset: with TLS turned on, the host of `PUBLIC_URL` with the TLS port; else none.",
  )
  @IsOptional()
  @Matches(PUBLIC_ADDRESS_PATTERN, { message: 'MQTT_PUBLIC_TLS_ADDRESS must be host[:port]' })
  MQTT_PUBLIC_TLS_ADDRESS?: string;

  @Setting(
    'mqtt',
    'A tenant ID: MQTT clients may then give `{application}@{tenant}` as their username (as TTS Cloud’s clients do), and their topics are `v3/{application}@{tenant}/…`. Unset: the username is the application ID.',
  )
  @IsOptional()
  @Matches(/^[a-z0-9](?:[-]?[a-z0-9]){1,35}$/, { message: 'MQTT_TENANT_ID must be an ID (lower-case letters, digits and single dashes)' })
  MQTT_TENANT_ID?: string;

  @Setting(
    'mqtt',
    'Persistent sessions (MQTT 3.1.1 clean session false, MQTT 5 session expiry): the QoS 1 messages one session keeps for its client while it is away or has not acknowledged them, at most (below MQTT’s 65535 packet identifiers); beyond, the oldest are dropped (counted in `lorawan_as_mqtt_messages_total{direction="dropped"}`).',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65_000)
  MQTT_SESSION_MAX_MESSAGES = 1000;

  @Setting(
    'mqtt',
    'Persistent sessions: a kept message older than this (ms) is not delivered any more, and a session whose client stays away this long is ended (an MQTT 5 client asking for a shorter session expiry gets its own).',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(7 * 86_400_000)
  MQTT_SESSION_MAX_AGE_MS = 3_600_000;

  @Setting(
    'mqtt',
    "MQTT CONNECTs being checked at once on an AS replica (each asks the Identity Server about the client's key); beyond, a CONNECT is refused at once with 3.1.1 return code 3 (server unavailable) or MQTT 5 reason 0x89 (server busy), so a flood of logins cannot load the Identity Server for every tenant. 0: no limit.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  MQTT_AUTH_MAX_PENDING = 64;

  @Setting(
    'mqtt',
    "MQTT over WebSocket on the gateway's HTTP port (and HTTPS with `HTTP_TLS_*`): the path clients connect to (`ws://<host>:<HTTP_PORT>/mqtt`, subprotocol `mqtt`), with the same credentials and topics as over TCP. `off`: no MQTT over WebSocket.",
  )
  @IsOptional()
  @Matches(/^(off|(\/[A-Za-z0-9._~-]+)+)$/, { message: 'MQTT_WS_PATH must be a path such as /mqtt (letters, digits, . _ ~ - between slashes), or off' })
  MQTT_WS_PATH = '/mqtt';

  @Setting(
    'mqtt',
    "`host:port` of the Application Server's MQTT TCP listener (`MQTT_PORT`), for a gateway that runs without the AS in its process (distributed mode: e.g. the `as-mqtt` Service, `as-mqtt:1883`): the gateway pipes each MQTT-over-WebSocket client's bytes to it. A process that runs the AS too hands its clients to that AS's MQTT server directly. Unset and no AS in the process: MQTT over WebSocket answers 503.",
    { default: 'unset (the in-process AS, if any)' },
  )
  @IsOptional()
  @Matches(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, { message: 'MQTT_WS_UPSTREAM must be host:port (an IPv6 address in brackets)' })
  MQTT_WS_UPSTREAM?: string;

  @Setting('webhooks', 'One webhook request, connect to end of response.')
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(300_000)
  WEBHOOK_TIMEOUT_MS = 5000;

  @Setting('webhooks', 'Attempts per delivery before it is given up (1 = no retry).')
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_MAX_ATTEMPTS = 20;

  @Setting(
    'webhooks',
    'Backoff before retry n: a random delay in [d/2, d], d = min(`WEBHOOK_RETRY_MAX_MS`, `WEBHOOK_RETRY_BASE_MS` × 2^(n−1)) (with the defaults a delivery is retried for up to about an hour).',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3_600_000)
  WEBHOOK_RETRY_BASE_MS = 1000;

  @Setting('webhooks', 'The cap of that backoff (see `WEBHOOK_RETRY_BASE_MS`); taken as `WEBHOOK_RETRY_BASE_MS` when lower.')
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400_000)
  WEBHOOK_RETRY_MAX_MS = 300_000;

  @Setting(
    'webhooks',
    "Requests in flight per webhook per AS replica, so one slow endpoint cannot hold up the others; an endpoint not shown to be fast (no answer yet, answering slower than 250 ms on average, or none for a second) gets at most 32, so a slow or tarpitting endpoint holds no more of the replica's connections than that. A busy AS's own event loop adds to each request's time: at 32, one webhook carrying a whole application's traffic fell behind what the AS handled (a second of wait in its lane, the burst's deliveries a second late), at 128 it kept up.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  WEBHOOK_CONCURRENCY = 128;

  @Setting('webhooks', "Distributed: how long JetStream waits for a job's acknowledgement before another worker gets it (recovery time after an AS dies).")
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  WEBHOOK_ACK_WAIT_MS = 30_000;

  @Setting(
    'webhooks',
    "Delivery jobs the queue holds at most (the JetStream stream's `max_msgs`, or the embedded table); beyond, new messages are refused with `queue_full`.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  WEBHOOK_QUEUE_MAX_JOBS = 100_000;

  @Setting('formatters', "Worker threads of each AS process that run JavaScript payload formatters (off the AS's event loop).")
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  FORMATTER_WORKERS = 2;

  @Setting('formatters', "Wall-clock limit of one formatter call (TTS's); a worker that does not answer 250 ms after it is terminated and replaced.")
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(10_000)
  FORMATTER_TIMEOUT_MS = 100;

  @Setting('formatters', "A worker's QuickJS heap in MiB (its WebAssembly memory's maximum, of which QuickJS takes about 16).")
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(24)
  @Max(2048)
  FORMATTER_MEMORY_LIMIT_MB = 32;

  @Setting('formatters', 'The largest result of a formatter call, in bytes of JSON.')
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(16 * 1024 * 1024)
  FORMATTER_MAX_OUTPUT_BYTES = 65_536;

  @Setting('formatters', "How deeply a formatter's result may nest (the returned object is level 1).")
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(2)
  @Max(256)
  FORMATTER_MAX_OUTPUT_DEPTH = 32;

  @Setting(
    'formatters',
    'Formatter calls of one application running at once per AS process (keep it below `FORMATTER_WORKERS`, so that one application never holds every worker).',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  FORMATTER_APP_CONCURRENCY = 1;

  @Setting('formatters', 'Formatter calls of one application that may wait for a worker; beyond, `formatter_busy` (429; an uplink goes on undecoded).')
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100_000)
  FORMATTER_APP_QUEUE = 32;

  @Setting('formatters', 'Formatter calls that may wait for a worker, all applications together; beyond, `formatter_busy` (429; an uplink goes on undecoded).')
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  FORMATTER_QUEUE = 256;

  @Setting(
    'formatters',
    'Calls of one application that may run into a formatter limit per minute; beyond, its formatter calls are refused (`formatter_suspended`) for the rest of the minute. 0: no bound.',
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100_000)
  FORMATTER_APP_RUNAWAYS_PER_MIN = 5;

  @Setting('formatters', "Nice value of the formatter worker threads on Linux (0: the process's own).")
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(19)
  FORMATTER_NICE = 10;

  @Setting('database', 'Apply pending migrations at start (serialised by a database lock across replicas); set false when a job runs `db-migrate`.')
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  DB_AUTO_MIGRATE = true;

  @Setting(
    'database',
    "PEM file of the CA(s) MySQL/MariaDB servers' certificates are verified against (and their name against the URL's host); with it every `*_DATABASE_URL` connection, and `db:migrate`, uses TLS (mysql2 `ssl`, `rejectUnauthorized`).",
  )
  @IsOptional()
  @IsString()
  DB_TLS_CA_FILE?: string;

  @Setting('database', 'Client certificate (PEM) for database users made `REQUIRE X509`; with `DB_TLS_KEY_FILE`.')
  @IsOptional()
  @IsString()
  DB_TLS_CERT_FILE?: string;

  @Setting('database', 'The key (PEM) of `DB_TLS_CERT_FILE`.')
  @IsOptional()
  @IsString()
  DB_TLS_KEY_FILE?: string;

  @Setting(
    'gateway',
    'The gateway serves HTTPS with this certificate (chain, PEM), read at start; with `HTTP_TLS_KEY_FILE`. Unset: plain HTTP (behind a TLS-terminating balancer). Set `PUBLIC_URL` to the `https://` address.',
  )
  @IsOptional()
  @IsString()
  HTTP_TLS_CERT_FILE?: string;

  @Setting('gateway', 'The key (PEM) of `HTTP_TLS_CERT_FILE`.')
  @IsOptional()
  @IsString()
  HTTP_TLS_KEY_FILE?: string;

  @Setting(
    'gateway',
    "The LNS address CUPS (`POST /update-info`) gives a LoRa Basics Station gateway whose `gateway_server_address` is empty (TTS `basic-station.default.lns-uri`), e.g. `wss://lns.example.com:8887` (the Gateway Server's `GS_LBS_TLS_PORT` as the gateways reach it). Unset: the gateway's own `tcUri` is kept.",
  )
  @IsOptional()
  @Matches(/^(wss?:\/\/)?[^\s/:]+(:\d{1,5})?\/?$/, { message: 'CUPS_LNS_URI must be a ws(s):// address: scheme, host and port' })
  CUPS_LNS_URI?: string;

  @Setting(
    'gateway',
    "The certificate (PEM; the first one is sent) a Basics Station gateway trusts for the LNS, its `tc.trust`: the CA that signed `GS_LBS_TLS_CERT_FILE`, or that certificate itself when it is self-signed. CUPS sends it with the gateway's `lbs_lns_secret` as the `tcCred`; without it CUPS cannot send LNS credentials (`server_trust`).",
  )
  @IsOptional()
  @IsString()
  CUPS_LNS_TRUST_FILE?: string;

  @Setting(
    'gateway',
    "The certificate (PEM) a Basics Station gateway trusts for CUPS, its `cups.trust`: the CA of the HTTPS certificate the gateways reach `/update-info` with. CUPS sends it with the gateway's `target_cups_key` as the `cupsCred`; without it CUPS cannot send CUPS credentials (`server_trust`).",
  )
  @IsOptional()
  @IsString()
  CUPS_TRUST_FILE?: string;

  @Setting(
    'transport',
    "Timeout of a request from one process to another (the gateway's to a component: 504 on expiry; the components' calls to each other too). The NS also drops a data uplink this long after its GS received it (`uplink_too_late`), since the GS has stopped waiting.",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600000)
  RPC_TIMEOUT_MS = 10000;

  @Setting(
    'process',
    "On SIGTERM, how long a process lets requests in flight finish before it closes anyway (keep it below the pod's `terminationGracePeriodSeconds`).",
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600000)
  SHUTDOWN_GRACE_MS = 10000;

  @Setting(
    'process',
    "How much is logged: `error`, `warn`, `info` (`log`, Nest's name, is the same), `debug` (adds a line per RPC a component serves), `verbose` (pino's `trace`).",
  )
  @IsOptional()
  @IsIn(['error', 'warn', 'log', 'info', 'debug', 'verbose'])
  LOG_LEVEL = 'info';

  @Setting('process', '`test` (jest, and the processes its e2e suites start) turns on checks that cost time: records shared between requests are frozen.')
  @IsOptional()
  @IsString()
  NODE_ENV?: string;

  @Setting('process', '`json`: one JSON object per line (pino, for log pipelines); `text`: coloured lines for people, in development.')
  @IsOptional()
  @IsIn(['text', 'json'])
  LOG_FORMAT: 'text' | 'json' = 'json';

  @Setting(
    'keys',
    'Key-encryption keys for keys at rest, `label=<32 hex>,label2=<hex>` (AES-128; 48/64 hex for AES-192/256). Checked at start; the keys are never logged.',
  )
  @IsOptional()
  @IsString()
  KEKS?: string;

  @Setting('keys', 'The `KEKS` label the JS wraps the keys it stores with (unset: stored as given). Must name a label of `KEKS`.')
  @IsOptional()
  @Matches(KEK_LABEL, { message: 'JS_KEK_LABEL must be a KEK label' })
  JS_KEK_LABEL?: string;

  @Setting('keys', 'The `KEKS` label the NS wraps the keys it stores with (unset: stored as given). Must name a label of `KEKS`.')
  @IsOptional()
  @Matches(KEK_LABEL, { message: 'NS_KEK_LABEL must be a KEK label' })
  NS_KEK_LABEL?: string;

  @Setting(
    'keys',
    'The `KEKS` label the IS seals gateway secrets with (`lbs_lns_secret`, `target_cups_key`; AES-GCM, TTS `is.gateways.encryption-key-id`; unset: stored as given). Must name a label of `KEKS`.',
  )
  @IsOptional()
  @Matches(KEK_LABEL, { message: 'IS_KEK_LABEL must be a KEK label' })
  IS_KEK_LABEL?: string;

  @Setting('keys', 'The `KEKS` label the AS wraps the keys it stores with (unset: stored as given). Must name a label of `KEKS`.')
  @IsOptional()
  @Matches(KEK_LABEL, { message: 'AS_KEK_LABEL must be a KEK label' })
  AS_KEK_LABEL?: string;

  @Setting(
    'keys',
    'A JSON file of device templates (format: `libs/lorawan/src/lib/device-templates/README.md`) added to (and overriding) the bundled catalogue.',
  )
  @IsOptional()
  @IsString()
  DEVICE_TEMPLATES_FILE?: string;

  @Setting(
    'keys',
    'The default device profile: a JSON object of Copy fields (`{"frequency_plan_id":"EU_863_870_TTN","lorawan_version":"MAC_V1_0_3",…}`) used on creation when no device template matches.',
  )
  @IsOptional()
  @IsString()
  DEFAULT_DEVICE_PROFILE?: string;

  @Setting(
    'ns',
    'MAC settings (a MACSettings JSON object, e.g. `{"status_count_periodicity":0,"use_adr":false}`) for every field a device\'s own `mac_settings` leave unset; checked at boot.',
  )
  @IsOptional()
  @IsString()
  NS_DEFAULT_MAC_SETTINGS?: string;
}

/** Settings that go together: both or neither. */
export const PAIRED_SETTINGS: ReadonlyArray<readonly [keyof Environment, keyof Environment]> = [
  ['NATS_TLS_CERT_FILE', 'NATS_TLS_KEY_FILE'],
  ['DB_TLS_CERT_FILE', 'DB_TLS_KEY_FILE'],
  ['HTTP_TLS_CERT_FILE', 'HTTP_TLS_KEY_FILE'],
  ['GS_LBS_TLS_CERT_FILE', 'GS_LBS_TLS_KEY_FILE'],
  ['MQTT_TLS_CERT_FILE', 'MQTT_TLS_KEY_FILE'],
  ['NATS_USER', 'NATS_PASSWORD'],
];

export type DatabaseComponent = 'is' | 'js' | 'ns' | 'as';

export interface StackConfig {
  httpPort: number;
  healthPort?: number;
  natsUrl?: string;
  /** Prefix of every subject, so several stacks can share one NATS (tests, staging). */
  natsSubjectPrefix?: string;
  /** TLS and credentials of every NATS connection (all unset: plain, anonymous). */
  natsSecurity: NatsSecurityConfig;
  dataDir: string;
  databaseUrls: Partial<Record<DatabaseComponent, string>>;
  /** TLS of every MySQL connection (unset: as the URL says, plain by default). */
  databaseTls?: TlsFilesConfig;
  /** The gateway's HTTPS certificate and key (unset: plain HTTP). */
  httpTls?: { certFile: string; keyFile: string };
  adminApiKey?: string;
  adminUserId: string;
  authCacheTtlMs: number;
  eventsRetentionMs: number;
  eventsHistoryMax: number;
  eventsStreamBuffer: number;
  eventsHistoryMaxBytes: number;
  /** EVENTS_DATA. */
  eventsData: 'watched' | 'always';
  /** The gateway's abuse limits (0: none). */
  limits: { apiKeyPerMin: number; addressPerMin: number; streamsPerKey: number };
  /** The gateway's HTTP connections. */
  http: HttpEdgeConfig;
  /** The gateway's CUPS server for LoRa Basics Station (`POST /update-info`): the default LNS address and the trust certificates (PEM files) it sends. */
  cups: { lnsUri?: string; lnsTrustFile?: string; trustFile?: string };
  autoMigrate: boolean;
  /** PUBLIC_URL without a trailing slash (default `http://localhost:<HTTP_PORT>/api/v3`). */
  publicUrl: string;
  webhooks: WebhookDeliveryConfig;
  formatters: FormatterConfig;
  gs: GatewayServerConfig;
  ns: NetworkServerConfig;
  as: ApplicationServerConfig;
  rpcTimeoutMs: number;
  shutdownGraceMs: number;
  logLevel: string;
  /** NODE_ENV=test: checks that cost time (shared records frozen). */
  testChecks: boolean;
  logFormat: 'text' | 'json';
  /** Raw KEKS value (label → key); parsed by the components that wrap keys. */
  keks?: string;
  /** The KEK label each registry wraps the keys it stores with (unset: stored in the clear). */
  kekLabels: Partial<Record<'is' | 'js' | 'ns' | 'as', string>>;
  deviceTemplatesFile?: string;
  /** Parsed DEFAULT_DEVICE_PROFILE (validated by the registries at boot). */
  defaultDeviceProfile?: Record<string, unknown>;
}

/** PEM files of a TLS client: the CA to verify the server with, and an optional client certificate and key. */
export interface TlsFilesConfig {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

/** NATS_TLS_* and NATS_USER/NATS_PASSWORD. */
export interface NatsSecurityConfig {
  /** Set when the connections use TLS (a CA file, a client certificate or a `tls://` URL). */
  tls?: TlsFilesConfig;
  user?: string;
  password?: string;
}

/** The gateway's HTTP connections (HTTP_*): timeouts and bounds against slow and abusive clients. */
export interface HttpEdgeConfig {
  /** Headers and body of a request must arrive within this long (0: no limit). */
  requestTimeoutMs: number;
  /** A connection without a request in progress closes after this long. */
  idleTimeoutMs: number;
  /** Connections open at once per client address (0: no limit). */
  maxConnectionsPerAddress: number;
  /** Bytes of an oversized body read and discarded before its 413. */
  oversizedBodyDrainBytes: number;
  /** MQTT over WebSocket (MQTT_WS_*): its path (unset: off) and the AS MQTT listener to pipe to (unset: the in-process AS only). */
  mqttWebSocket: { path?: string; upstream?: { host: string; port: number } };
}

/** The Gateway Server's UDP frontend (GS_*). */
export interface GatewayServerConfig {
  udpPort: number;
  udpHost: string;
  /** The Basics Station (LNS) listeners: ws on `port`, wss on `tlsPort` when `tls` is set; the WebSocket keepalive. */
  lbs: {
    port: number;
    host: string;
    tlsPort: number;
    tls?: { certFile: string; keyFile: string };
    pingIntervalMs: number;
    missedPongs: number;
    /** Failed authentications per remote address and minute, and authentications in progress, at most (0: no limit). */
    authLimits: { failuresPerMin: number; maxPending: number };
  };
  /** Copies of one frame within this many ms go to the NS as one message (0: each alone). */
  uplinkCoalesceMs: number;
  /** Frames in flight to the NS at most (the adaptive limit's ceiling). */
  nsMaxInFlight: number;
  /** SO_RCVBUF of the UDP socket in bytes (0: the system's default). */
  udpReceiveBuffer: number;
  /** A UDP gateway silent this long (ms) is disconnected (`timeout`). */
  udpConnectionTimeoutMs: number;
  /** A gateway's location from its status goes to the IS at most this often (ms). */
  updateGatewayLocationDebounceMs: number;
  requireRegisteredGateways: boolean;
  fallbackFrequencyPlan?: string;
  /** The downlink scheduler's duty cycle: enforced or only counted, and its sliding window in ms. */
  enforceDutyCycle: boolean;
  dutyCycleWindowMs: number;
  /** EUIs the IS does not know, remembered per replica: at most this many (0: none), each for `unknownEuiCacheTtlMs`. */
  unknownEuiCacheSize: number;
  unknownEuiCacheTtlMs: number;
  /** IS lookups per second for EUIs without a connection (0: no limit). */
  unknownEuiLookupsPerSec: number;
}

/** The Network Server's network (NS_*). */
export interface NetworkServerConfig {
  /** Upper-case hex. */
  netId: string;
  /** DevAddr prefixes as given (`26000000/7`); empty: the NetID's. */
  devAddrPrefixes: string[];
  /** Lengths of `recent_uplinks` (MAC state and device) and `mac_state.recent_downlinks`. */
  recentUplinks: number;
  recentDownlinks: number;
  /** Data uplinks matched and written at a time. */
  uplinkConcurrency: number;
  /** A data uplink must start its handling within this many ms of the GS receiving it. */
  uplinkDeadlineMs: number;
  /** Join-requests handled at a time. */
  joinConcurrency: number;
  /** A join-request must start its handling within this many ms of the GS receiving it. */
  joinDeadlineMs: number;
  /** Devices whose latest record the NS keeps for their next uplink (0: none). */
  deviceCacheSize: number;
  /** NS_DEFAULT_MAC_SETTINGS as given (a JSON object; the NS validates it as MACSettings at boot). */
  defaultMacSettings: Record<string, unknown>;
}

/** The Application Server's own settings (AS_*; its webhooks and formatters have theirs). */
export interface ApplicationServerConfig {
  /** Devices whose latest record the AS keeps for their next message (0: none). */
  deviceCacheSize: number;
  /** The NS's application messages handled at a time. */
  uplinkConcurrency: number;
  /** An application message must start its handling within this many ms of reaching the AS. */
  uplinkDeadlineMs: number;
  /** Data uplinks are refused in part while first webhook attempts wait longer than this (0: never). */
  webhookLagShedMs: number;
  /** The Storage Integration (AS_STORAGE_*). */
  storage: StorageIntegrationConfig;
  /** The Pub/Sub integrations (AS_PUBSUB_*). */
  pubsub: PubSubIntegrationConfig;
  /** The MQTT server (MQTT_*). */
  mqtt: MqttServerConfig;
}

/** The Pub/Sub integrations' settings (AS_PUBSUB_*). */
export interface PubSubIntegrationConfig {
  /** MQTT downlink topics subscribed as `$share/<shareGroup>/<topic>`. */
  sharedSubscriptions: boolean;
  /** The MQTT shared-subscription group and NATS queue group of the AS replicas. */
  shareGroup: string;
  /** The longest reconnection backoff. */
  reconnectMaxMs: number;
}

/** The AS's MQTT server (MQTT_*). */
export interface MqttServerConfig {
  port: number;
  /**
   * MQTT_PORT was set: a port that cannot be bound stops the AS. Left at its default (1883, which
   * a local mosquitto often holds), a taken port is logged as an error and the AS runs without its
   * MQTT TCP listener, so that `npm start` works on such a machine.
   */
  portRequired: boolean;
  host: string;
  /** MQTTS: its port and the certificate and key files (unset: no TLS listener). */
  tls?: { port: number; certFile: string; keyFile: string };
  /** Usernames may be `{application}@{tenantId}`. */
  tenantId?: string;
  /** The public addresses clients are told (MQTT_PUBLIC_ADDRESS, MQTT_PUBLIC_TLS_ADDRESS); unset: derived from PUBLIC_URL's host and the ports. */
  publicAddress?: string;
  publicTlsAddress?: string;
  /** QoS 1 messages a persistent session keeps at most. */
  sessionMaxMessages: number;
  /** Kept messages and absent clients' sessions expire after this many ms. */
  sessionMaxAgeMs: number;
  /** CONNECTs checked with the IS at once (0: no limit). */
  authMaxPending: number;
}

/** The Storage Integration's settings (AS_STORAGE_*). */
export interface StorageIntegrationConfig {
  /** Stored messages older than this many ms are deleted (0: kept). */
  retentionMs: number;
  /** How often the retention runs. */
  retentionIntervalMs: number;
  /** Messages waiting for their batched write at most. */
  bufferMax: number;
}

/** The AS's payload formatter workers (FORMATTER_*). */
export interface FormatterConfig {
  workers: number;
  timeoutMs: number;
  memoryLimitBytes: number;
  maxOutputBytes: number;
  maxOutputDepth: number;
  /** Calls of one application running at once, and waiting. */
  applicationConcurrency: number;
  applicationQueue: number;
  /** Calls waiting, all applications together. */
  queue: number;
  /** Runs of one application that may run into a limit per minute (0: no bound). */
  applicationRunawaysPerMinute: number;
  /** Nice value of the worker threads (Linux); 0: the process's. */
  nice: number;
}

/** Webhook delivery settings (WEBHOOK_*). */
export interface WebhookDeliveryConfig {
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  concurrency: number;
  ackWaitMs: number;
  queueMaxJobs: number;
}

export class ConfigError extends Error {}

/** Validates the environment and returns the typed configuration; throws ConfigError listing every problem. */
export function loadConfig(env: Record<string, string | undefined>): StackConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const e = plainToInstance(Environment, present);
  const errors = validateSync(e, { whitelist: true });
  for (const [a, b] of PAIRED_SETTINGS) {
    if (!present[a] !== !present[b]) throw new ConfigError(`invalid configuration: ${a} and ${b} go together`);
  }
  if (errors.length > 0) {
    throw new ConfigError(`invalid configuration: ${errors.map((x) => Object.values(x.constraints ?? {}).join(', ') || x.property).join('; ')}`);
  }
  return {
    httpPort: e.HTTP_PORT,
    healthPort: e.HEALTH_PORT,
    natsUrl: e.NATS_URL,
    natsSubjectPrefix: e.NATS_SUBJECT_PREFIX,
    natsSecurity: {
      tls:
        e.NATS_TLS_CA_FILE || e.NATS_TLS_CERT_FILE || e.NATS_URL?.startsWith('tls://')
          ? { caFile: e.NATS_TLS_CA_FILE, certFile: e.NATS_TLS_CERT_FILE, keyFile: e.NATS_TLS_KEY_FILE }
          : undefined,
      user: e.NATS_USER,
      password: e.NATS_PASSWORD,
    },
    dataDir: e.DATA_DIR,
    databaseUrls: { is: e.IS_DATABASE_URL, js: e.JS_DATABASE_URL, ns: e.NS_DATABASE_URL, as: e.AS_DATABASE_URL },
    databaseTls: e.DB_TLS_CA_FILE || e.DB_TLS_CERT_FILE ? { caFile: e.DB_TLS_CA_FILE, certFile: e.DB_TLS_CERT_FILE, keyFile: e.DB_TLS_KEY_FILE } : undefined,
    httpTls: e.HTTP_TLS_CERT_FILE && e.HTTP_TLS_KEY_FILE ? { certFile: e.HTTP_TLS_CERT_FILE, keyFile: e.HTTP_TLS_KEY_FILE } : undefined,
    adminApiKey: e.ADMIN_API_KEY,
    adminUserId: e.ADMIN_USER_ID,
    authCacheTtlMs: e.AUTH_CACHE_TTL_MS,
    eventsRetentionMs: e.EVENTS_RETENTION_MS,
    eventsHistoryMax: e.EVENTS_HISTORY_MAX,
    eventsStreamBuffer: e.EVENTS_STREAM_BUFFER,
    eventsHistoryMaxBytes: e.EVENTS_HISTORY_MAX_BYTES,
    eventsData: e.EVENTS_DATA,
    limits: { apiKeyPerMin: e.RATE_LIMIT_API_KEY_PER_MIN, addressPerMin: e.RATE_LIMIT_ADDRESS_PER_MIN, streamsPerKey: e.EVENTS_MAX_STREAMS_PER_KEY },
    http: {
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: e.HTTP_IDLE_TIMEOUT_MS,
      maxConnectionsPerAddress: e.HTTP_MAX_CONNECTIONS_PER_ADDRESS,
      oversizedBodyDrainBytes: e.HTTP_OVERSIZED_BODY_DRAIN_BYTES,
      mqttWebSocket: { path: e.MQTT_WS_PATH === 'off' ? undefined : e.MQTT_WS_PATH, upstream: parseHostPort('MQTT_WS_UPSTREAM', e.MQTT_WS_UPSTREAM) },
    },
    cups: { lnsUri: e.CUPS_LNS_URI, lnsTrustFile: e.CUPS_LNS_TRUST_FILE, trustFile: e.CUPS_TRUST_FILE },
    autoMigrate: e.DB_AUTO_MIGRATE,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.HTTP_PORT}/api/v3`).replace(/\/+$/, ''),
    webhooks: {
      allowPrivateNetworks: e.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: Math.max(e.WEBHOOK_RETRY_MAX_MS, e.WEBHOOK_RETRY_BASE_MS),
      concurrency: e.WEBHOOK_CONCURRENCY,
      ackWaitMs: e.WEBHOOK_ACK_WAIT_MS,
      queueMaxJobs: e.WEBHOOK_QUEUE_MAX_JOBS,
    },
    formatters: {
      workers: e.FORMATTER_WORKERS,
      timeoutMs: e.FORMATTER_TIMEOUT_MS,
      memoryLimitBytes: e.FORMATTER_MEMORY_LIMIT_MB * 1024 * 1024,
      maxOutputBytes: e.FORMATTER_MAX_OUTPUT_BYTES,
      maxOutputDepth: e.FORMATTER_MAX_OUTPUT_DEPTH,
      applicationConcurrency: e.FORMATTER_APP_CONCURRENCY,
      applicationQueue: e.FORMATTER_APP_QUEUE,
      queue: e.FORMATTER_QUEUE,
      applicationRunawaysPerMinute: e.FORMATTER_APP_RUNAWAYS_PER_MIN,
      nice: e.FORMATTER_NICE,
    },
    gs: {
      udpPort: e.GS_UDP_PORT,
      udpHost: e.GS_UDP_HOST,
      lbs: {
        port: e.GS_LBS_PORT,
        host: e.GS_LBS_HOST,
        tlsPort: e.GS_LBS_TLS_PORT,
        tls: e.GS_LBS_TLS_CERT_FILE && e.GS_LBS_TLS_KEY_FILE ? { certFile: e.GS_LBS_TLS_CERT_FILE, keyFile: e.GS_LBS_TLS_KEY_FILE } : undefined,
        pingIntervalMs: e.GS_LBS_PING_INTERVAL_MS,
        missedPongs: e.GS_LBS_MISSED_PONGS,
        authLimits: { failuresPerMin: e.GS_LBS_AUTH_FAILURES_PER_MIN, maxPending: e.GS_LBS_AUTH_MAX_PENDING },
      },
      uplinkCoalesceMs: e.GS_UPLINK_COALESCE_MS,
      nsMaxInFlight: e.GS_NS_MAX_IN_FLIGHT,
      udpReceiveBuffer: e.GS_UDP_RECEIVE_BUFFER,
      udpConnectionTimeoutMs: e.GS_UDP_CONNECTION_TIMEOUT_MS,
      updateGatewayLocationDebounceMs: e.GS_UPDATE_GATEWAY_LOCATION_DEBOUNCE_MS,
      requireRegisteredGateways: e.GS_REQUIRE_REGISTERED_GATEWAYS,
      fallbackFrequencyPlan: e.GS_FALLBACK_FREQUENCY_PLAN,
      enforceDutyCycle: e.GS_ENFORCE_DUTY_CYCLE,
      dutyCycleWindowMs: e.GS_DUTY_CYCLE_WINDOW_MS,
      unknownEuiCacheSize: e.GS_UNKNOWN_EUI_CACHE_SIZE,
      unknownEuiCacheTtlMs: e.GS_UNKNOWN_EUI_CACHE_TTL_MS,
      unknownEuiLookupsPerSec: e.GS_UNKNOWN_EUI_LOOKUPS_PER_SEC,
    },
    ns: {
      netId: e.NS_NET_ID.toUpperCase(),
      devAddrPrefixes: e.NS_DEV_ADDR_PREFIXES ? e.NS_DEV_ADDR_PREFIXES.split(',') : [],
      recentUplinks: e.NS_RECENT_UPLINKS,
      deviceCacheSize: e.NS_DEVICE_CACHE_SIZE,
      recentDownlinks: e.NS_RECENT_DOWNLINKS,
      uplinkConcurrency: e.NS_UPLINK_CONCURRENCY,
      uplinkDeadlineMs: e.NS_UPLINK_DEADLINE_MS,
      joinConcurrency: e.NS_JOIN_CONCURRENCY,
      joinDeadlineMs: e.NS_JOIN_DEADLINE_MS,
      defaultMacSettings: parseJsonObject('NS_DEFAULT_MAC_SETTINGS', e.NS_DEFAULT_MAC_SETTINGS) ?? {},
    },
    as: {
      deviceCacheSize: e.AS_DEVICE_CACHE_SIZE,
      uplinkConcurrency: e.AS_UPLINK_CONCURRENCY,
      uplinkDeadlineMs: e.AS_UPLINK_DEADLINE_MS,
      webhookLagShedMs: e.AS_WEBHOOK_LAG_SHED_MS,
      storage: {
        retentionMs: e.AS_STORAGE_RETENTION_DAYS * 86_400_000,
        retentionIntervalMs: e.AS_STORAGE_RETENTION_INTERVAL_MS,
        bufferMax: e.AS_STORAGE_BUFFER_MAX,
      },
      pubsub: { sharedSubscriptions: e.AS_PUBSUB_SHARED_SUBSCRIPTIONS, shareGroup: e.AS_PUBSUB_SHARE_GROUP, reconnectMaxMs: e.AS_PUBSUB_RECONNECT_MAX_MS },
      mqtt: {
        port: e.MQTT_PORT,
        portRequired: present.MQTT_PORT !== undefined,
        host: e.MQTT_HOST,
        tls: e.MQTT_TLS_CERT_FILE && e.MQTT_TLS_KEY_FILE ? { port: e.MQTT_TLS_PORT, certFile: e.MQTT_TLS_CERT_FILE, keyFile: e.MQTT_TLS_KEY_FILE } : undefined,
        tenantId: e.MQTT_TENANT_ID,
        publicAddress: e.MQTT_PUBLIC_ADDRESS,
        publicTlsAddress: e.MQTT_PUBLIC_TLS_ADDRESS,
        sessionMaxMessages: e.MQTT_SESSION_MAX_MESSAGES,
        sessionMaxAgeMs: e.MQTT_SESSION_MAX_AGE_MS,
        authMaxPending: e.MQTT_AUTH_MAX_PENDING,
      },
    },
    rpcTimeoutMs: e.RPC_TIMEOUT_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    logLevel: e.LOG_LEVEL,
    testChecks: e.NODE_ENV === 'test',
    logFormat: e.LOG_FORMAT,
    keks: e.KEKS,
    kekLabels: { is: e.IS_KEK_LABEL, js: e.JS_KEK_LABEL, ns: e.NS_KEK_LABEL, as: e.AS_KEK_LABEL },
    deviceTemplatesFile: e.DEVICE_TEMPLATES_FILE,
    defaultDeviceProfile: parseJsonObject('DEFAULT_DEVICE_PROFILE', e.DEFAULT_DEVICE_PROFILE),
  };
}

function parseJsonObject(name: string, value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConfigError(`invalid configuration: ${name} must be a JSON object`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigError(`invalid configuration: ${name} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

/** `host:port` (IPv6 in brackets) → its parts; the port 1 to 65535. */
function parseHostPort(name: string, value: string | undefined): { host: string; port: number } | undefined {
  if (value === undefined) return undefined;
  const colon = value.lastIndexOf(':');
  const port = Number(value.slice(colon + 1));
  if (!(port >= 1 && port <= 65535)) throw new ConfigError(`invalid configuration: ${name} must be host:port with a port from 1 to 65535`);
  return { host: value.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port };
}

/** Injection token for the StackConfig. */
export const STACK_CONFIG = Symbol('STACK_CONFIG');
