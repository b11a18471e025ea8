import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { newUlid } from '@lorawan/api';
import { httpStatusOf, isStackError, refuseUpgrade, type StackError } from '@lorawan/errors';
import WebSocket, { WebSocketServer } from 'ws';
import type { GatewayConnection, PendingDownlink } from '../../connection/gateway-connection';
import type { DisconnectReason, GatewayConnections } from '../../connection/gateway-connections';
import { ErrGatewayEuiNotFound, ErrGatewayPath, ErrIdentityServerUnavailable } from '../../errors';
import type { GatewayLookupResult } from '../../lookup/gateway-lookup';
import type { PlannedDownlink } from '../../scheduling/class-a-downlink';
import type { FrontendEvents, GatewayFrontend } from '../frontend';
import { AuthLimits, type AuthLimitOptions } from './auth-limits';
import { parseRouterInfoQuery, parseTrafficPath, ROUTER_INFO_PATH, routerInfoAnswer, routerInfoError, type TrafficEndpoint } from './discovery';
import { toTxConfirmation } from './downlink';
import { stringifyStationJson } from './json';
import { isProductionStation, MAX_UPSTREAM_TEXT, parseUpstream, type UpstreamMessage, versionStatus } from './messages';
import { dnmsgOfPlanned } from './planned';
import { routerConfig } from './router-config';
import { muxTimeOf, roundTripMs, timesyncAnswer } from './time';
import { toUplinkMessage } from './uplink';

/**
 * The Gateway Server's LoRa Basics Station LNS frontend (TTS `pkg/gatewayserver/io/semtechws` with
 * `lbslns`): WebSocket listeners on a plain port (`ws://`) and, with a certificate, a TLS one
 * (`wss://`); discovery on `/router-info` (the gateway's EUI → the URI of its data connection,
 * with this listener's scheme, the host the gateway asked and a port); the data connection on
 * `/traffic/eui-<EUI>`, admitted before the upgrade (a registered gateway; its API key holding
 * RIGHT_GATEWAY_LINK, or no key when the gateway does not require one: else 401/403 with the
 * error, no WebSocket), connected through the core's `GatewayConnections` (a connection of the
 * same gateway it replaces). On it: `version` → the gateway's status and `router_config` from its
 * frequency plans; `jreq`/`updf`/`propdf` → the core's uplinks (their `xtime` the session of
 * their radio unit that downlinks are timed in, their `gpstime` the GPS time class B needs, their `RefTime` a round
 * trip); the core's planned downlinks → `dnmsg` with a `diid` its `dntxed` names (→ a successful
 * TX acknowledgment); `timesync` answered. The server pings every gateway and disconnects one
 * that leaves `missedPongs` pings in a row unanswered (`missed_pongs`). Bad messages are dropped
 * and counted, never thrown. The `Authorization` header is never logged.
 */

/** Why the Basics Station frontend dropped a message (the drop metric's label). */
export type LbsDropReason = 'bad_message' | 'bad_frame' | 'no_frequency_plan' | 'unknown_diid' | 'bad_downlink' | 'binary_message';

/** What the core answers for the frontend: a gateway by EUI, and whether a credential may link it. */
export interface LinkAccess {
  /** The gateway registered with an EUI (`GatewayLookup`, shared with the other frontends). */
  gateway(eui: string): Promise<GatewayLookupResult>;
  /** Resolves when the gateway may link with this `Authorization` header (or none); rejects with the refusal (a StackError). */
  assertLink(gateway: Extract<GatewayLookupResult, { status: 'found' }>['gateway'], authorization: string | undefined): Promise<void>;
}

export interface BasicStationOptions {
  /** The `ws://` port (0: any free one). */
  port: number;
  host: string;
  /** The `wss://` listener: its port and certificate files (read at start). */
  tls?: { port: number; certFile: string; keyFile: string };
  pingIntervalMs: number;
  missedPongs: number;
  /** Failed authentications per remote address and minute, and authentications in progress, at most (0: no limit; default none). */
  authLimits?: AuthLimitOptions;
}

/** A discovery query must come this soon after the WebSocket opened. */
const QUERY_TIMEOUT_MS = 10_000;
/** Station's largest message is well under this; a larger frame closes the connection (ws `maxPayload`). */
const MAX_PAYLOAD = 4 * MAX_UPSTREAM_TEXT;

/** A gateway's data connection. */
interface Station {
  ws: WebSocket;
  conn: GatewayConnection;
  /** The latest xtime the gateway sent: the concentrator session the scheduler's clock follows. */
  sessionXtime?: bigint;
  /**
   * The latest xtime of each radio unit (`rctx`): a station with several concentrators (`hwspec`
   * `sx1301/<n>`) runs each in a session of its own, and a class A downlink is timed on the counter
   * of the unit that heard its uplink (station `ral.h`, `timesync.c` ts_xtime2ustime).
   */
  unitXtimes: Map<number, bigint>;
  /** Pings sent since the last pong. */
  missed: number;
  keepalive: NodeJS.Timeout;
}

export class BasicStationServer implements GatewayFrontend {
  /** TTS's name of a Basics Station LNS connection (`semtechws/` and the `lbslns` formatter's ID): the stats' and `gs.gateway.connect`'s `protocol`. */
  readonly protocol = 'semtechws/lbslns';
  private readonly listeners: Array<{ server: Server; secure: boolean }> = [];
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD });
  private readonly stations = new Map<GatewayConnection, Station>();
  private readonly authLimits: AuthLimits;

  constructor(
    private readonly o: BasicStationOptions,
    private readonly connections: GatewayConnections,
    private readonly access: LinkAccess,
    private readonly on: FrontendEvents<LbsDropReason>,
  ) {
    this.authLimits = new AuthLimits(o.authLimits ?? { failuresPerMin: 0, maxPending: 0 });
  }

  /** Listens on the ws port (and the wss port with a certificate); resolves with the ws port. */
  async start(): Promise<number> {
    await this.listen(createServer(), false, this.o.port);
    if (this.o.tls) {
      const { certFile, keyFile, port } = this.o.tls;
      await this.listen(createTlsServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }), true, port);
    }
    return this.port as number;
  }

  async stop(): Promise<void> {
    for (const station of [...this.stations.values()]) this.end(station, 'stopped', 1001);
    for (const client of this.wss.clients) client.terminate();
    await Promise.all(this.listeners.splice(0).map(({ server }) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }

  describe(): { fields: Record<string, unknown>; message: string } {
    const tls = this.tlsPort === undefined ? '' : `, wss://${this.o.host}:${this.tlsPort}`;
    return {
      fields: { lbs_port: this.port, ...(this.tlsPort === undefined ? {} : { lbs_tls_port: this.tlsPort }) },
      message: `LoRa Basics Station gateways served on ws://${this.o.host}:${this.port}${tls}`,
    };
  }

  /** The bound ws:// port (after `start`). */
  get port(): number | undefined {
    return this.portOf(false);
  }

  /** The bound wss:// port (after `start`, with a certificate). */
  get tlsPort(): number | undefined {
    return this.portOf(true);
  }

  send(conn: GatewayConnection, downlink: PlannedDownlink, context?: unknown): PendingDownlink | undefined {
    const station = this.stations.get(conn);
    const band = conn.frequency_plan?.band_id;
    if (!station || !band || station.ws.readyState !== WebSocket.OPEN) return undefined;
    const pending = conn.pend(context, downlink.emission);
    const deviceClass = downlink.device_class ?? 'A';
    // Class A: the uplink's timestamp plus the delay, on the counter of the unit that heard it; else the scheduler's clock.
    const unitXtime = deviceClass === 'A' ? station.unitXtimes.get(downlink.emission.antenna_index) : undefined;
    const dnmsg = dnmsgOfPlanned(
      downlink,
      {
        device_class: deviceClass,
        diid: pending.token,
        session_xtime: unitXtime ?? station.sessionXtime,
        dev_eui: devEuiOf(context),
        rctx: downlink.emission.antenna_index,
        mux_time: muxTimeOf(new Date()),
      },
      band,
    );
    if ('error' in dnmsg) {
      conn.acknowledged(pending.token);
      this.on.dropped('bad_downlink', String(dnmsg.error), conn);
      return undefined;
    }
    station.ws.send(stringifyStationJson(dnmsg));
    return pending;
  }

  private portOf(secure: boolean): number | undefined {
    const address = this.listeners.find((l) => l.secure === secure)?.server.address();
    return address && typeof address === 'object' ? (address as AddressInfo).port : undefined;
  }

  private async listen(server: Server, secure: boolean, port: number): Promise<void> {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => refuse(res, ErrGatewayPath.with({ path: pathOf(req) }), 426));
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head, secure));
    server.on('clientError', (_err, socket: Duplex) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.o.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.listeners.push({ server, secure });
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, secure: boolean): void {
    socket.on('error', () => socket.destroy());
    const path = pathOf(req);
    if (path === ROUTER_INFO_PATH) return this.wss.handleUpgrade(req, socket, head, (ws) => this.discover(ws, req, secure));
    const eui = parseTrafficPath(req.url ?? '');
    if (!eui) return refuseUpgrade(socket, ErrGatewayPath.with({ path }));
    this.open(eui, req, socket, head).catch((err: unknown) => refuseUpgrade(socket, isStackError(err) ? err : ErrIdentityServerUnavailable.with()));
  }

  /** Admits the data connection of `eui` (else rejects with the refusal), connects the gateway and upgrades to the WebSocket. */
  private async open(eui: string, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    await this.admit(eui, req);
    if (socket.destroyed) return;
    this.replace(eui);
    const conn = await this.connections.connect(eui, this, { address: req.socket.remoteAddress ?? '', port: req.socket.remotePort ?? 0 });
    if (!conn) throw ErrIdentityServerUnavailable.with();
    if (socket.destroyed) return this.connections.disconnect(conn, 'closed');
    this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(ws, conn));
  }

  /**
   * Resolves when the gateway of `eui` may open its data connection with the request's
   * `Authorization` (or none), within the authentication limits of the request's address.
   */
  private async admit(eui: string, req: IncomingMessage): Promise<void> {
    await this.authLimits.guard(req.socket.remoteAddress ?? '', async () => {
      const result = await this.access.gateway(eui);
      if (result.status === 'unknown') throw ErrGatewayEuiNotFound.with({ eui });
      if (result.status === 'throttled') throw ErrIdentityServerUnavailable.with();
      await this.access.assertLink(result.gateway, req.headers.authorization);
    });
  }

  /** A new data connection of a gateway ends its current one, whichever frontend holds it (TTS: `new_connection`). */
  private replace(eui: string): void {
    const current = this.connections.get(eui);
    if (!current) return;
    const station = this.stations.get(current);
    if (station) this.end(station, 'replaced', 1000);
    else this.connections.disconnect(current, 'replaced');
  }

  /** `/router-info`: one query, one answer, then the connection closes. */
  private discover(ws: WebSocket, req: IncomingMessage, secure: boolean): void {
    const timer = setTimeout(() => ws.terminate(), QUERY_TIMEOUT_MS);
    const answer = (value: unknown) => {
      clearTimeout(timer);
      ws.send(stringifyStationJson(value), () => ws.close(1000));
    };
    ws.once('message', (data, binary) => {
      const query = parseRouterInfoQuery(binary ? '' : String(data));
      if ('error' in query) return answer(routerInfoError(undefined, query.error));
      this.admit(query.eui, req).then(
        () => answer(routerInfoAnswer(query, this.endpointOf(req, secure))),
        (err: unknown) => answer(routerInfoError(query.router, isStackError(err) ? err.fullMessage : 'the gateway could not be looked up now')),
      );
    });
    ws.on('error', () => ws.terminate());
  }

  /** Where the gateway reaches this listener: its scheme, the host the gateway asked for (`Host`) and that port, else this listener's. */
  private endpointOf(req: IncomingMessage, secure: boolean): TrafficEndpoint {
    const listening = (this.portOf(secure) ?? 0) as number;
    let host = req.socket.localAddress ?? 'localhost';
    let port = listening;
    try {
      const url = new URL(`http://${req.headers.host ?? ''}`);
      host = url.hostname.replace(/^\[(.*)\]$/, '$1') || host;
      if (url.port) port = Number(url.port);
    } catch {
      // A Host header that is no host: this listener's address.
    }
    return { scheme: secure ? 'wss' : 'ws', host, port };
  }

  private serve(ws: WebSocket, conn: GatewayConnection): void {
    const station: Station = { ws, conn, unitXtimes: new Map(), missed: 0, keepalive: setInterval(() => this.ping(station), this.o.pingIntervalMs) };
    station.keepalive.unref();
    this.stations.set(conn, station);
    conn.claimDownlinkPath();
    ws.on('pong', () => {
      station.missed = 0;
      this.heard(station);
    });
    ws.on('message', (data, binary) => {
      if (binary) return this.on.dropped('binary_message', undefined, conn);
      this.heard(station);
      try {
        this.handle(station, String(data));
      } catch (err) {
        this.on.dropped('bad_message', (err as Error).message, conn);
      }
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => this.end(station, 'closed'));
  }

  /** Traffic (a message, a pong) from the gateway: it stays connected and keeps its downlink path. */
  private heard({ conn, ws }: Station): void {
    const now = Date.now();
    conn.seen(conn.remote, now);
    if (ws.readyState === WebSocket.OPEN) conn.claimDownlinkPath(now);
  }

  /** The keepalive: a gateway that left `missedPongs` pings unanswered is disconnected; one the core let go (timed out) is closed. */
  private ping(station: Station): void {
    if (this.connections.get(station.conn.ids.eui) !== station.conn) return this.end(station, 'timeout', 1000);
    if (station.missed >= this.o.missedPongs) return this.end(station, 'missed_pongs', 1001);
    station.missed++;
    station.ws.ping();
  }

  /** Ends a data connection (once): its keepalive, the core's connection, and the WebSocket (`code`: closed politely, else cut). */
  private end(station: Station, reason: DisconnectReason, code?: number): void {
    if (this.stations.get(station.conn) !== station) return;
    this.stations.delete(station.conn);
    clearInterval(station.keepalive);
    this.connections.disconnect(station.conn, reason);
    if (station.ws.readyState === WebSocket.OPEN) {
      if (code === 1000) station.ws.close(code);
      else station.ws.terminate();
    }
  }

  private handle(station: Station, text: string): void {
    const { conn, ws } = station;
    const msg = parseUpstream(text);
    if ('error' in msg) return this.on.dropped('bad_message', msg.error, conn);
    const now = new Date();
    switch (msg.type) {
      case 'version':
        return this.configure(station, msg, now);
      case 'jreq':
      case 'updf':
      case 'propdf': {
        const band = conn.frequency_plan?.band_id;
        if (!band) return this.on.dropped('no_frequency_plan', conn.frequency_plan_ids.join(','), conn);
        const up = toUplinkMessage(msg, band, conn.ids, now.toISOString(), `gs:uplink:${newUlid()}`);
        if ('error' in up) return this.on.dropped('bad_frame', up.error, conn);
        station.sessionXtime = msg.upInfo.xtime;
        station.unitXtimes.set(msg.upInfo.rctx, msg.upInfo.xtime);
        conn.gps_time = msg.upInfo.gpstime > 0n ? { tmms: Number(msg.upInfo.gpstime / 1000n), received_ms: now.getTime() } : undefined;
        // RefTime: the MuxTime of the server's last message plus the gateway's time since: a round trip.
        const rtt = roundTripMs(msg.refTime, now);
        if (rtt !== undefined) conn.scheduler?.rtts.record(rtt, now.getTime());
        return this.on.uplink(conn, up);
      }
      case 'dntxed': {
        const confirmation = toTxConfirmation(msg);
        const downlink = conn.acknowledged(confirmation.diid);
        if (!downlink) return this.on.dropped('unknown_diid', `dntxed with diid ${confirmation.diid}`, conn);
        return this.on.txAck(conn, downlink, confirmation.result);
      }
      case 'timesync':
        return ws.send(stringifyStationJson(timesyncAnswer(msg.txtime, now)));
    }
  }

  /** `version`: the gateway's status, then its `router_config` (none it can use: the connection closes). */
  private configure(station: Station, version: Extract<UpstreamMessage, { type: 'version' }>, now: Date): void {
    const { conn, ws } = station;
    this.on.status(conn, versionStatus(version, now.toISOString()));
    const config = routerConfig(conn.frequency_plan_ids, { production: isProductionStation(version), mux_time: muxTimeOf(now) });
    if ('error' in config) {
      this.on.dropped('no_frequency_plan', String(config.error), conn);
      return this.end(station, 'closed', 1000);
    }
    ws.send(stringifyStationJson(config));
  }
}

/** The path of a request, without its query. */
function pathOf(req: IncomingMessage): string {
  return (req.url ?? '').split('?')[0];
}

/** The device's EUI of a downlink's context (the NS's request's `end_device_ids`), when it has one. */
function devEuiOf(context: unknown): string | undefined {
  const ids = (context as { end_device_ids?: { dev_eui?: unknown } } | undefined)?.end_device_ids;
  return typeof ids?.dev_eui === 'string' ? ids.dev_eui : undefined;
}

/** The error as the API answers it (TTS shape), on a plain HTTP response. */
function refuse(res: ServerResponse, err: StackError, status = httpStatusOf(err)): void {
  const body = JSON.stringify(err.toStatus());
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Refuses an upgrade with the error's HTTP status and body: no WebSocket. */
