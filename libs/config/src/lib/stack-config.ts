import 'reflect-metadata';
import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, validateSync } from 'class-validator';

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
const toBool = ({ value }: { value: unknown }) => (value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value);
const MYSQL_URL = /^mysql:\/\/.+$/;
const KEK_LABEL = /^[A-Za-z0-9_.:-]{1,2048}$/;

/**
 * The environment, validated once at boot. Only `loadConfig` reads it; everything else receives
 * the typed `StackConfig`. Names are fixed by ARCHITECTURE.md and documented in the README.
 */
export class Environment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) HTTP_PORT = 1885;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(65535) HEALTH_PORT?: number;
  @IsOptional() @IsString() @Matches(/^(nats|tls|ws|wss):\/\/.+/, { message: 'NATS_URL must be a nats:// URL' }) NATS_URL?: string;
  @IsOptional() @Matches(/^[A-Za-z0-9_-]+$/, { message: 'NATS_SUBJECT_PREFIX may hold letters, digits, - and _' }) NATS_SUBJECT_PREFIX?: string;
  /** PEM file of the CA(s) the NATS server's certificate is verified against; with it (or a `tls://` URL) every NATS connection uses TLS. */
  @IsOptional() @IsString() NATS_TLS_CA_FILE?: string;
  /** Client certificate and key (PEM) for NATS servers that verify clients (mutual TLS). */
  @IsOptional() @IsString() NATS_TLS_CERT_FILE?: string;
  @IsOptional() @IsString() NATS_TLS_KEY_FILE?: string;
  /** The component's own NATS user (see `npm run cli -- nats-config`); its replies come on `_INBOX_<user>.>`. */
  @IsOptional() @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'NATS_USER may hold letters, digits, - and _' }) NATS_USER?: string;
  @IsOptional() @IsString() NATS_PASSWORD?: string;
  @IsOptional() @IsString() DATA_DIR = './data';
  @IsOptional() @Matches(MYSQL_URL, { message: 'IS_DATABASE_URL must be a mysql:// URL' }) IS_DATABASE_URL?: string;
  @IsOptional() @Matches(MYSQL_URL, { message: 'JS_DATABASE_URL must be a mysql:// URL' }) JS_DATABASE_URL?: string;
  @IsOptional() @Matches(MYSQL_URL, { message: 'NS_DATABASE_URL must be a mysql:// URL' }) NS_DATABASE_URL?: string;
  @IsOptional() @Matches(MYSQL_URL, { message: 'AS_DATABASE_URL must be a mysql:// URL' }) AS_DATABASE_URL?: string;
  @IsOptional() @IsString() @Matches(/^\S{16,}$/, { message: 'ADMIN_API_KEY must be at least 16 characters without spaces' }) ADMIN_API_KEY?: string;
  /** The bootstrap admin user the IS creates on first start; ADMIN_API_KEY is that user's key. */
  @IsOptional() @Matches(/^[a-z0-9](?:[-]?[a-z0-9]){2,}$/, { message: 'ADMIN_USER_ID must be a user ID' }) @MaxLength(36) ADMIN_USER_ID = 'admin';
  /** How long the gateway reuses a resolved caller (credentials and rights); 0 disables the cache. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(300000) AUTH_CACHE_TTL_MS = 5000;
  /** How long events are kept for `tail`/`after` (JetStream max age in distributed mode). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1000) @Max(30 * 86_400_000) EVENTS_RETENTION_MS = 86_400_000;
  /** Embedded mode: how many events the in-process history keeps (oldest dropped first). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(10_000_000) EVENTS_HISTORY_MAX = 10_000;
  /** Distributed mode: the size bound of the JetStream events stream (its oldest events are dropped beyond it). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1024 * 1024) @Max(Number.MAX_SAFE_INTEGER) EVENTS_HISTORY_MAX_BYTES = 1024 ** 3;
  /** Messages a stream may have waiting for a slow subscriber before it is closed with an error. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(1_000_000) EVENTS_STREAM_BUFFER = 1000;
  /** HTTP API requests per minute per API key (its ID), per gateway process; 0: no limit. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(100_000_000) RATE_LIMIT_API_KEY_PER_MIN = 60_000;
  /** HTTP API requests per minute per source address, whatever the credentials, per gateway process; 0: no limit. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(100_000_000) RATE_LIMIT_ADDRESS_PER_MIN = 120_000;
  /** The HTTP edge: a request's headers and body must have arrived this long after it began, else 408 and the connection closes; 0: no limit. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(3_600_000) HTTP_REQUEST_TIMEOUT_MS = 60_000;
  /** The HTTP edge: a connection without a request in progress (kept alive between requests) is closed after this long. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) @Max(3_600_000) HTTP_IDLE_TIMEOUT_MS = 72_000;
  /** The HTTP edge: connections one client address may have open at once; one more is closed as it arrives. 0: no limit. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(1_000_000) HTTP_MAX_CONNECTIONS_PER_ADDRESS = 256;
  /** The HTTP edge: a body over the limit is read and discarded up to this many bytes before its 413, so the client reads it; a longer one is answered at once. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(1 << 30) HTTP_OVERSIZED_BODY_DRAIN_BYTES = 16 * 1024 * 1024;
  /** Event streams one credential may have open at once on a gateway process; 0: no limit. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(1_000_000) EVENTS_MAX_STREAMS_PER_KEY = 100;
  /** Public base URL of the HTTP API (…/api/v3), used in webhook `X-Downlink-Push`/`X-Downlink-Replace` and `X-Tts-Domain`. */
  @IsOptional() @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'PUBLIC_URL must be an absolute http(s) URL' }) PUBLIC_URL?: string;
  /** SSRF guard switch: allow webhook destinations in loopback, private and link-local ranges. */
  @IsOptional() @Transform(toBool) @IsBoolean() WEBHOOK_ALLOW_PRIVATE_NETWORKS = false;
  /** The Gateway Server's Semtech UDP port (0: any free port) and address. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) GS_UDP_PORT = 1700;
  @IsOptional() @IsString() GS_UDP_HOST = '0.0.0.0';
  /** Copies of one frame from several gateways within this many ms go to the NS in one call (0: each alone). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(200) GS_UPLINK_COALESCE_MS = 20;
  /**
   * The UDP socket's receive buffer in bytes (SO_RCVBUF; the kernel caps it at net.core.rmem_max):
   * what datagrams wait in while the event loop is busy (a GC pause, a burst). Linux's default
   * (~208 KB) holds ~40 ms of four gateways at 1000 frames/s; 0 keeps the system's default.
   */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(1 << 30) GS_UDP_RECEIVE_BUFFER = 4 * 1024 * 1024;
  /** Refuse gateways the IS does not know (else they connect as `eui-<eui>` with the fallback plan). */
  @IsOptional() @Transform(toBool) @IsBoolean() GS_REQUIRE_REGISTERED_GATEWAYS = true;
  @IsOptional() @Matches(/^[A-Z0-9_]{1,64}$/, { message: 'GS_FALLBACK_FREQUENCY_PLAN must be a frequency plan ID' }) GS_FALLBACK_FREQUENCY_PLAN?: string;
  /** How many EUIs the IS does not know a GS replica remembers (least recently seen forgotten first); 0: none. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(10_000_000) GS_UNKNOWN_EUI_CACHE_SIZE = 65_536;
  /** How long a GS replica remembers that the IS does not know an EUI (a `gateway.create` or `.update` naming it forgets it at once). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(86_400_000) GS_UNKNOWN_EUI_CACHE_TTL_MS = 300_000;
  /** Gateway lookups (`GsIs.GetGatewayForEUI`) a GS replica makes per second at most, for EUIs it holds no connection of; beyond, their datagrams are dropped. 0: no limit. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(1_000_000) GS_UNKNOWN_EUI_LOOKUPS_PER_SEC = 100;
  /** The Network Server's NetID (6 hex digits): joined devices get DevAddrs of its prefix. */
  @IsOptional() @Matches(/^[0-9A-Fa-f]{6}$/, { message: 'NS_NET_ID must be 6 hex digits' }) NS_NET_ID = '000000';
  /** DevAddr prefixes to allocate from instead of the NetID's (`26011000/20,26012000/20`). */
  @IsOptional()
  @Matches(/^[0-9A-Fa-f]{8}\/\d{1,2}(,[0-9A-Fa-f]{8}\/\d{1,2})*$/, {
    message: 'NS_DEV_ADDR_PREFIXES must be a comma-separated list of DevAddr prefixes (26000000/7)',
  })
  NS_DEV_ADDR_PREFIXES?: string;
  /** How many uplinks the NS keeps in `mac_state.recent_uplinks` and the device's `recent_uplinks` (TTS: 20). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(1000) NS_RECENT_UPLINKS = 20;
  /** How many data uplinks one NS matches and writes at a time (the others wait their turn, in order). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(10000) NS_UPLINK_CONCURRENCY = 32;
  /**
   * How many devices' latest records the NS keeps (by session DevAddr) to match their next uplink
   * without reading their document again when nothing else changed it (0: none). About 26 KB of
   * heap each with 20 recent uplinks from four gateways (~100 MB for the default).
   */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(10_000_000) NS_DEVICE_CACHE_SIZE = 4096;
  /** How many downlinks the NS keeps in `mac_state.recent_downlinks` (TTS: 5). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(1000) NS_RECENT_DOWNLINKS = 5;
  /** Timeout of one webhook request (connect to end of response). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) @Max(300_000) WEBHOOK_TIMEOUT_MS = 5000;
  /** Attempts per webhook delivery before it is given up (1 = no retry). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(1000) WEBHOOK_MAX_ATTEMPTS = 20;
  /** Backoff before retry n: a random delay in [d/2, d] with d = min(WEBHOOK_RETRY_MAX_MS, WEBHOOK_RETRY_BASE_MS × 2^(n−1)). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(3_600_000) WEBHOOK_RETRY_BASE_MS = 1000;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(86_400_000) WEBHOOK_RETRY_MAX_MS = 300_000;
  /** Requests in flight per webhook per AS replica, so one slow endpoint cannot starve the others. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(10_000) WEBHOOK_CONCURRENCY = 32;
  /** Distributed mode: how long JetStream waits for a delivery's ack before handing it to another worker (AS restart recovery time). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1000) @Max(3_600_000) WEBHOOK_ACK_WAIT_MS = 30_000;
  /** Delivery jobs the queue holds at most (JetStream stream or embedded table); beyond, new messages are refused with `queue_full`. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(100_000_000) WEBHOOK_QUEUE_MAX_JOBS = 100_000;
  /** Worker threads of each AS process that run JavaScript payload formatters (off the AS's event loop). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(64) FORMATTER_WORKERS = 2;
  /** Wall-clock limit of one formatter call (TTS: 100 ms); a worker that does not answer shortly after it is replaced. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(10) @Max(10_000) FORMATTER_TIMEOUT_MS = 100;
  /** A worker's QuickJS heap in MiB (the WebAssembly memory's maximum; QuickJS itself takes ~16 of it). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(24) @Max(2048) FORMATTER_MEMORY_LIMIT_MB = 32;
  /** The largest result of a formatter call, in bytes of JSON. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1024) @Max(16 * 1024 * 1024) FORMATTER_MAX_OUTPUT_BYTES = 65_536;
  /** How deeply a formatter's result may nest (the returned object is level 1). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(2) @Max(256) FORMATTER_MAX_OUTPUT_DEPTH = 32;
  /** Formatter calls of one application running at once per AS process (keep it below FORMATTER_WORKERS). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(64) FORMATTER_APP_CONCURRENCY = 1;
  /** Formatter calls of one application that may wait for a worker; beyond, `formatter_busy`. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(100_000) FORMATTER_APP_QUEUE = 32;
  /** Formatter calls that may wait for a worker, all applications together; beyond, `formatter_busy`. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(1_000_000) FORMATTER_QUEUE = 256;
  /** Runs of one application's formatters that may run into a limit per minute; beyond, its formatters are suspended for the rest of that minute (0: no bound). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(100_000) FORMATTER_APP_RUNAWAYS_PER_MIN = 5;
  /** Nice value of the formatter worker threads on Linux (0–19; 0: the process's own). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(19) FORMATTER_NICE = 10;
  @IsOptional() @Transform(toBool) @IsBoolean() DB_AUTO_MIGRATE = true;
  /** PEM file of the CA(s) MySQL/MariaDB servers' certificates are verified against; with it every `*_DATABASE_URL` connection uses TLS. */
  @IsOptional() @IsString() DB_TLS_CA_FILE?: string;
  /** Client certificate and key (PEM) for database servers that verify clients (`REQUIRE X509`). */
  @IsOptional() @IsString() DB_TLS_CERT_FILE?: string;
  @IsOptional() @IsString() DB_TLS_KEY_FILE?: string;
  /** The gateway serves HTTPS with this certificate (chain) and key (PEM files); both or neither. */
  @IsOptional() @IsString() HTTP_TLS_CERT_FILE?: string;
  @IsOptional() @IsString() HTTP_TLS_KEY_FILE?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) @Max(600000) RPC_TIMEOUT_MS = 10000;
  /** On SIGTERM, how long a process waits for requests in flight before it closes anyway. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(600000) SHUTDOWN_GRACE_MS = 10000;
  @IsOptional() @IsIn(['error', 'warn', 'log', 'info', 'debug', 'verbose']) LOG_LEVEL = 'info';
  /** `test` (jest, and the processes its e2e suites start) turns on checks that cost time: records shared between requests are frozen. */
  @IsOptional() @IsString() NODE_ENV?: string;
  /** `json` (one object per line, for log pipelines) or `text` (for people, in development). */
  @IsOptional() @IsIn(['text', 'json']) LOG_FORMAT: 'text' | 'json' = 'json';
  /** `label=<hex KEK>,…`: key-encryption keys for keys at rest (parsed and checked by @lorawan/crypto at boot). */
  @IsOptional() @IsString() KEKS?: string;
  @IsOptional() @Matches(KEK_LABEL, { message: 'JS_KEK_LABEL must be a KEK label' }) JS_KEK_LABEL?: string;
  @IsOptional() @Matches(KEK_LABEL, { message: 'NS_KEK_LABEL must be a KEK label' }) NS_KEK_LABEL?: string;
  @IsOptional() @Matches(KEK_LABEL, { message: 'AS_KEK_LABEL must be a KEK label' }) AS_KEK_LABEL?: string;
  /** A JSON file of device templates added to (and overriding) the bundled catalogue. */
  @IsOptional() @IsString() DEVICE_TEMPLATES_FILE?: string;
  /** The home Network Server's default device profile (JSON object of Copy fields). */
  @IsOptional() @IsString() DEFAULT_DEVICE_PROFILE?: string;
  /** The NS's MAC settings for fields a device's `mac_settings` leaves unset (a MACSettings JSON object; validated by the NS at boot). */
  @IsOptional() @IsString() NS_DEFAULT_MAC_SETTINGS?: string;
}

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
  /** The gateway's abuse limits (0: none). */
  limits: { apiKeyPerMin: number; addressPerMin: number; streamsPerKey: number };
  /** The gateway's HTTP connections. */
  http: HttpEdgeConfig;
  autoMigrate: boolean;
  /** PUBLIC_URL without a trailing slash (default `http://localhost:<HTTP_PORT>/api/v3`). */
  publicUrl: string;
  webhooks: WebhookDeliveryConfig;
  formatters: FormatterConfig;
  gs: GatewayServerConfig;
  ns: NetworkServerConfig;
  rpcTimeoutMs: number;
  shutdownGraceMs: number;
  logLevel: string;
  /** NODE_ENV=test: checks that cost time (shared records frozen). */
  testChecks: boolean;
  logFormat: 'text' | 'json';
  /** Raw KEKS value (label → key); parsed by the components that wrap keys. */
  keks?: string;
  /** The KEK label each registry wraps the keys it stores with (unset: stored in the clear). */
  kekLabels: Partial<Record<'js' | 'ns' | 'as', string>>;
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
}

/** The Gateway Server's UDP frontend (GS_*). */
export interface GatewayServerConfig {
  udpPort: number;
  udpHost: string;
  /** Copies of one frame within this many ms go to the NS as one message (0: each alone). */
  uplinkCoalesceMs: number;
  /** SO_RCVBUF of the UDP socket in bytes (0: the system's default). */
  udpReceiveBuffer: number;
  requireRegisteredGateways: boolean;
  fallbackFrequencyPlan?: string;
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
  /** Devices whose latest record the NS keeps for their next uplink (0: none). */
  deviceCacheSize: number;
  /** NS_DEFAULT_MAC_SETTINGS as given (a JSON object; the NS validates it as MACSettings at boot). */
  defaultMacSettings: Record<string, unknown>;
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
  const pairs: Array<[string, string]> = [
    ['NATS_TLS_CERT_FILE', 'NATS_TLS_KEY_FILE'],
    ['DB_TLS_CERT_FILE', 'DB_TLS_KEY_FILE'],
    ['HTTP_TLS_CERT_FILE', 'HTTP_TLS_KEY_FILE'],
    ['NATS_USER', 'NATS_PASSWORD'],
  ];
  for (const [a, b] of pairs) {
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
    limits: { apiKeyPerMin: e.RATE_LIMIT_API_KEY_PER_MIN, addressPerMin: e.RATE_LIMIT_ADDRESS_PER_MIN, streamsPerKey: e.EVENTS_MAX_STREAMS_PER_KEY },
    http: {
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: e.HTTP_IDLE_TIMEOUT_MS,
      maxConnectionsPerAddress: e.HTTP_MAX_CONNECTIONS_PER_ADDRESS,
      oversizedBodyDrainBytes: e.HTTP_OVERSIZED_BODY_DRAIN_BYTES,
    },
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
      uplinkCoalesceMs: e.GS_UPLINK_COALESCE_MS,
      udpReceiveBuffer: e.GS_UDP_RECEIVE_BUFFER,
      requireRegisteredGateways: e.GS_REQUIRE_REGISTERED_GATEWAYS,
      fallbackFrequencyPlan: e.GS_FALLBACK_FREQUENCY_PLAN,
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
      defaultMacSettings: parseJsonObject('NS_DEFAULT_MAC_SETTINGS', e.NS_DEFAULT_MAC_SETTINGS) ?? {},
    },
    rpcTimeoutMs: e.RPC_TIMEOUT_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    logLevel: e.LOG_LEVEL,
    testChecks: e.NODE_ENV === 'test',
    logFormat: e.LOG_FORMAT,
    keks: e.KEKS,
    kekLabels: { js: e.JS_KEK_LABEL, ns: e.NS_KEK_LABEL, as: e.AS_KEK_LABEL },
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

/** Injection token for the StackConfig. */
export const STACK_CONFIG = Symbol('STACK_CONFIG');
