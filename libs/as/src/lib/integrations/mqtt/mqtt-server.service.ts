import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createServer as createTlsServer } from 'node:tls';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  ACCESS_INVALIDATION_SUBJECT,
  type AccessInvalidation,
  APPLICATION_UP_KINDS,
  type ApplicationUpKind,
  type CallerIdentity,
  DownlinkQueueRequest,
  decodeMessage,
  invalidationAffects,
  type MQTTConnectionInfo,
  newUlid,
} from '@lorawan/api';
import { RpcInvoker } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig, type MqttServerConfig } from '@lorawan/config';
import { Code, isErrorDetails } from '@lorawan/errors';
import { mqttConnections } from '@lorawan/observability';
import { decode, type PubSub, PUBSUB, type Subscription } from '@lorawan/transport';
import { DownlinkQueue } from '../../downlinks/downlink-queue.service';
import { mqttApplicationSubjects } from './mqtt.integration';
import { mqttConnectionInfo } from './mqtt-connection-info';
import { type Admission, type ConnectionHost, type ConnectRefusal, MqttConnection, type MqttTransport, parseUsername, topicAccess } from './mqtt-connection';
import { MqttSessions } from './mqtt-sessions';
import type { BufferedMessage } from './session-buffer';
import type { DownlinkOperation } from './topics';

/** How often expired sessions and messages are swept. */
const SWEEP_INTERVAL_MS = 10_000;
/** Credential failures that are the client's (a wrong or unknown key): CONNACK "bad username or password". */
const BAD_CREDENTIALS = new Set<number>([Code.Unauthenticated, Code.InvalidArgument, Code.NotFound]);

/**
 * The Application Server's MQTT server (TTS's MQTT Server API, `pkg/applicationserver/io/mqtt`):
 * MQTT 3.1.1 and 5 on MQTT_PORT and, with a certificate, over TLS on MQTT_TLS_PORT; over WebSocket
 * through the gateway's HTTP port (piped to MQTT_PORT, or handed to `accept` in one process). A client
 * connects with its application ID as username and an API key as password, checked by the Identity
 * Server (`EntityAccess.Authorize`); its key's rights decide what it may do (subscribe:
 * RIGHT_APPLICATION_TRAFFIC_READ, publish downlinks: RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE). The
 * application messages come over the transport (`MqttIntegration`'s broadcast), to which this
 * replica subscribes per application it has sessions of: any number of AS replicas, each serving
 * its own clients, all deliver. When the IS says a key or an application changed
 * (`access.invalidate`), the clients it concerns are checked again at once and disconnected if
 * they lost their rights; a key that expires disconnects its clients then.
 */
@Injectable()
export class MqttServer implements ConnectionHost, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MqttServer');
  private readonly config: MqttServerConfig;
  private readonly publicUrl: string;
  private readonly servers: Array<{ server: Server; transport: 'tcp' | 'tls' }> = [];
  private readonly sockets = new Set<Duplex>();
  private readonly sessions: MqttSessions;
  private readonly applicationSubscriptions = new Map<string, Subscription>();
  private invalidations?: Subscription;
  /** CONNECTs being checked with the IS now (bounded by `authMaxPending`). */
  private authorizing = 0;
  private sweeper?: NodeJS.Timeout;
  private readonly expiryTimers = new Map<MqttConnection, NodeJS.Timeout>();

  constructor(
    @Inject(STACK_CONFIG) config: StackConfig,
    @Inject(PUBSUB) private readonly pubsub: PubSub,
    @Inject(RpcInvoker) private readonly rpc: RpcInvoker,
    @Inject(DownlinkQueue) private readonly queue: DownlinkQueue,
  ) {
    this.config = config.as.mqtt;
    this.publicUrl = config.publicUrl;
    this.sessions = new MqttSessions({
      maxMessages: this.config.sessionMaxMessages,
      maxAgeMs: this.config.sessionMaxAgeMs,
      onApplication: (applicationId, active) => this.follow(applicationId, active),
    });
  }

  /** The ports listened on (TCP, and TLS when configured): with port 0 the ones the system chose. */
  get ports(): { tcp?: number; tls?: number } {
    const out: { tcp?: number; tls?: number } = {};
    for (const { server, transport } of this.servers) out[transport] = (server.address() as AddressInfo | null)?.port;
    return out;
  }

  /** Where and as whom a client of the application connects (`AppAs.GetMQTTConnectionInfo`). */
  connectionInfo(applicationId: string): MQTTConnectionInfo {
    return mqttConnectionInfo({ config: this.config, publicUrl: this.publicUrl, ports: this.ports }, applicationId);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.invalidations = this.pubsub.subscribe(ACCESS_INVALIDATION_SUBJECT, (payload) => {
      try {
        this.invalidated(decode<AccessInvalidation>(payload));
      } catch (err) {
        this.logger.warn({ error: (err as Error).message }, 'ignored a malformed access invalidation');
      }
    });
    this.sweeper = setInterval(() => this.sessions.sweep(Date.now()), Math.min(SWEEP_INTERVAL_MS, this.config.sessionMaxAgeMs));
    this.sweeper.unref();
    await this.listen('tcp', createServer(), this.config.port).catch((err: NodeJS.ErrnoException) => {
      // The default port taken (a local mosquitto holds 1883): serve everything else, say so loudly.
      if (this.config.portRequired || err.code !== 'EADDRINUSE') throw err;
      this.logger.error(
        { port: this.config.port, error: err.message },
        `MQTT server not listening: port ${this.config.port} is taken by another process; set MQTT_PORT to serve MQTT`,
      );
    });
    const tls = this.config.tls;
    if (tls) await this.listen('tls', createTlsServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }), tls.port);
    const ports = this.ports;
    if (ports.tcp !== undefined || ports.tls !== undefined)
      this.logger.log(
        { host: this.config.host, ...ports },
        `MQTT server on ${this.config.host}:${ports.tcp ?? '-'}${ports.tls ? `, TLS on :${ports.tls}` : ''}`,
      );
  }

  async onApplicationShutdown(): Promise<void> {
    this.invalidations?.unsubscribe();
    if (this.sweeper) clearInterval(this.sweeper);
    for (const timer of this.expiryTimers.values()) clearTimeout(timer);
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(this.servers.map(({ server }) => new Promise<void>((res) => server.close(() => res()))));
    this.sessions.clear();
    for (const sub of this.applicationSubscriptions.values()) sub.unsubscribe();
    this.applicationSubscriptions.clear();
  }

  async admit(username: string | undefined, password: Buffer | undefined): Promise<Admission | ConnectRefusal> {
    const names = parseUsername(username, this.config.tenantId);
    if (!names || !password || password.length === 0) return 'bad_credentials';
    const authorization = `Bearer ${password.toString('utf8')}`;
    // A flood of CONNECTs is refused here, before it reaches the IS, which answers every tenant.
    if (this.config.authMaxPending > 0 && this.authorizing >= this.config.authMaxPending) return 'busy';
    this.authorizing++;
    let caller: CallerIdentity | ConnectRefusal;
    try {
      caller = await this.authorize(names.applicationId, authorization);
    } finally {
      this.authorizing--;
    }
    return typeof caller === 'string' ? caller : { ...names, authorization, caller, access: topicAccess(caller) };
  }

  /** The caller of a key on an application (`EntityAccess.Authorize`), or why it may not connect. */
  private async authorize(applicationId: string, authorization: string): Promise<CallerIdentity | ConnectRefusal> {
    let caller: CallerIdentity;
    try {
      caller = await this.rpc.invoke(
        'EntityAccess.Authorize',
        { authorization, entity: { kind: 'application', id: applicationId } },
        { request_id: newUlid(), correlation_ids: [] },
      );
    } catch (err) {
      if (isErrorDetails(err) && BAD_CREDENTIALS.has(err.code)) return 'bad_credentials';
      if (isErrorDetails(err) && err.code === Code.PermissionDenied) return 'not_authorized';
      throw isErrorDetails(err) ? new Error(`${err.namespace}:${err.name}`) : err;
    }
    // TTS RequireApplication: some right on the application.
    return caller.rights.length === 0 ? 'not_authorized' : caller;
  }

  attach(conn: MqttConnection, request: { clean: boolean; expiryMs: number }): { sessionPresent: boolean; expiryMs: number } {
    const { sessionPresent, expiryMs } = this.sessions.attach(conn, request);
    this.watchExpiry(conn);
    return { sessionPresent, expiryMs };
  }

  detach(conn: MqttConnection): void {
    this.sessions.detach(conn, Date.now());
  }

  subscribe(conn: MqttConnection, filter: string, qos: 0 | 1): void {
    this.sessions.of(conn)?.subscriptions.set(filter, qos);
  }

  unsubscribe(conn: MqttConnection, filter: string): boolean {
    return this.sessions.of(conn)?.subscriptions.delete(filter) ?? false;
  }

  acknowledge(conn: MqttConnection, packetId: number): void {
    this.sessions.of(conn)?.buffer.ack(packetId);
  }

  pending(conn: MqttConnection): BufferedMessage[] {
    return this.sessions.pending(conn, Date.now());
  }

  /**
   * `{"downlinks":[…]}` published on `…/down/push|replace`: queued through the AS's downlink queue
   * as `AppAs.DownlinkQueuePush|Replace` would (the same events, reports and errors) with the
   * client's identity; a payload that is no valid request answers `invalid`.
   */
  async downlink(conn: MqttConnection, deviceId: string, operation: DownlinkOperation, payload: Buffer): Promise<'ok' | 'invalid'> {
    const admission = conn.admission as Admission;
    let request: DownlinkQueueRequest;
    try {
      const body = JSON.parse(payload.toString('utf8')) as { downlinks?: unknown };
      request = decodeMessage(DownlinkQueueRequest, {
        end_device_ids: { device_id: deviceId, application_ids: { application_id: admission.applicationId } },
        downlinks: body?.downlinks,
      });
    } catch {
      return 'invalid';
    }
    const ctx = { request_id: newUlid(), correlation_ids: [`as:mqtt:${newUlid()}`], caller: admission.caller };
    await (operation === 'push' ? this.queue.push(request, ctx) : this.queue.replace(request, ctx));
    return 'ok';
  }

  private async listen(transport: 'tcp' | 'tls', server: Server, port: number): Promise<void> {
    const connectEvent = transport === 'tls' ? 'secureConnection' : 'connection';
    server.on(connectEvent, (socket: Socket) => this.accept(socket, transport));
    await new Promise<void>((res, rej) => {
      server.once('error', rej);
      server.listen(port, this.config.host, () => {
        server.off('error', rej);
        res();
      });
    });
    server.on('error', (err) => this.logger.warn({ transport, error: err.message }, 'MQTT listener error'));
    this.servers.push({ server, transport });
  }

  /**
   * Serves one client's byte stream: a TCP or TLS connection of this server's listeners, or the
   * binary frames of a WebSocket the gateway accepted in this process (MQTT over WebSocket).
   */
  accept(socket: Duplex, transport: MqttTransport): void {
    if (socket instanceof Socket) socket.setNoDelay(true);
    this.sockets.add(socket);
    mqttConnections.inc({ transport });
    const conn = new MqttConnection(socket, transport, this);
    conn.onClose = () => {
      this.sockets.delete(socket);
      mqttConnections.dec({ transport });
      const timer = this.expiryTimers.get(conn);
      if (timer) clearTimeout(timer);
      this.expiryTimers.delete(conn);
    };
  }

  /** A key with an expiry disconnects its clients when it expires. */
  private watchExpiry(conn: MqttConnection): void {
    const at = Date.parse(conn.admission?.caller.expires_at ?? '');
    if (Number.isNaN(at)) return;
    const previous = this.expiryTimers.get(conn);
    if (previous) clearTimeout(previous);
    const timer = setTimeout(() => conn.disconnect(0x87, 'API key expired'), Math.max(0, Math.min(at - Date.now(), 2 ** 31 - 1)));
    timer.unref();
    this.expiryTimers.set(conn, timer);
  }

  /** The IS says keys or entities changed: each client it concerns is checked again; one that lost a right it used is disconnected. */
  private invalidated(msg: AccessInvalidation): void {
    for (const conn of [...this.sessions.connections()]) {
      const admission = conn.admission;
      if (admission && invalidationAffects(msg, admission.caller)) void this.recheck(conn, admission);
    }
  }

  private async recheck(conn: MqttConnection, admission: Admission): Promise<void> {
    let fresh: CallerIdentity | ConnectRefusal;
    try {
      fresh = await this.authorize(admission.applicationId, admission.authorization);
    } catch (err) {
      // The IS cannot answer now: the client keeps its rights until it can (as a cached HTTP identity would).
      this.logger.warn({ application_id: admission.applicationId, error: (err as Error)?.message ?? String(err) }, 'MQTT client not checked again');
      return;
    }
    const access = typeof fresh === 'string' ? undefined : topicAccess(fresh);
    if (!access || (admission.access.read && !access.read) || (admission.access.write && !access.write)) {
      this.logger.log({ application_id: admission.applicationId, client_id: conn.clientId }, 'MQTT client disconnected: its key lost its rights');
      conn.disconnect(0x87, 'rights revoked');
      return;
    }
    conn.admission = { ...admission, caller: fresh as CallerIdentity, access };
    this.watchExpiry(conn);
  }

  /** Subscribes this replica to an application's messages while it has sessions of it. */
  private follow(applicationId: string, active: boolean): void {
    if (!active) {
      this.applicationSubscriptions.get(applicationId)?.unsubscribe();
      this.applicationSubscriptions.delete(applicationId);
      return;
    }
    if (this.applicationSubscriptions.has(applicationId)) return;
    const prefix = `as.mqtt.up.${applicationId}.`;
    this.applicationSubscriptions.set(
      applicationId,
      this.pubsub.subscribe(mqttApplicationSubjects(applicationId), (payload, subject) => {
        const [deviceId, kind] = subject.slice(prefix.length).split('.');
        if (!deviceId || !(APPLICATION_UP_KINDS as readonly string[]).includes(kind)) return;
        this.sessions.deliver(applicationId, deviceId, kind as ApplicationUpKind, Buffer.from(payload), Date.now());
      }),
    );
  }
}
