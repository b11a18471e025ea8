import { type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type WebSocket, WebSocketServer } from 'ws';
import { Code, refuseUpgrade } from '@lorawan/errors';
import { childLogger, LogSampler, mqttWebSockets, mqttWebSocketsRefused } from '@lorawan/observability';
import { ErrMqttSubprotocol, ErrMqttUnavailable, ErrMqttUpgradeRequired, PlainStatus } from '../gateway-errors';
import { sendError } from '../http-reply';
import type { MqttUpstream } from './mqtt-upstream';
import { mqttStreamOf, WS_CLOSE } from './websocket-stream';

/** The subprotocols MQTT over WebSocket is offered with, the preferred first (MQTT 3.1.1 and 5 §6: `mqtt`; MQTT 3.1 clients: `mqttv3.1`). */
const MQTT_SUBPROTOCOLS = ['mqtt', 'mqttv3.1'];

export interface MqttWebSocketOptions {
  /** The path clients connect to (MQTT_WS_PATH). */
  path: string;
  /** Where clients are served; none: every upgrade is answered 503. */
  upstream?: MqttUpstream;
  /** The largest WebSocket message (one MQTT packet, as clients send them): larger ones close the connection with 1009. */
  maxPayload: number;
}

/**
 * MQTT over WebSocket on the gateway's HTTP port (issue 34): an upgrade on `path` that offers the
 * subprotocol `mqtt` becomes a WebSocket whose binary frames are the byte stream of an MQTT
 * connection to the Application Server's MQTT server (`upstream`): the AS of this process, or its
 * TCP listener (MQTT_WS_UPSTREAM) in distributed mode. The gateway holds no MQTT state: CONNECT's
 * credentials, rights, sessions, QoS 1 and the fan-out of every AS replica's messages are the MQTT
 * server's, exactly as over TCP. Refusals before the upgrade are answered in the API's error shape:
 * another path 404, no `mqtt` subprotocol 400, the MQTT server out of reach 503; a plain request on
 * the path 426.
 */
export class MqttWebSocketBridge {
  private readonly log = childLogger({ context: 'MqttWebSocket' });
  /** An unreachable MQTT server is logged a few times per interval, not once per client. */
  private readonly sampler = new LogSampler();
  private readonly wss: WebSocketServer;
  private readonly open = new Set<WebSocket>();
  private closing = false;

  constructor(private readonly options: MqttWebSocketOptions) {
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxPayload,
      perMessageDeflate: false,
      handleProtocols: (offered) => MQTT_SUBPROTOCOLS.find((p) => offered.has(p)) ?? false,
    });
    // A malformed handshake (no key, a wrong version…): answered here, in the API's error shape.
    this.wss.on('wsClientError', (err: Error, socket: Duplex) => {
      mqttWebSocketsRefused.inc({ reason: 'handshake' });
      refuseUpgrade(socket, new PlainStatus(Code.InvalidArgument, err.message));
    });
    if (!options.upstream)
      this.log?.info({ path: options.path }, 'MQTT over WebSocket answers 503: no Application Server in this process and MQTT_WS_UPSTREAM is not set');
  }

  /** Takes the HTTP server's upgrades, and answers plain requests on the path with 426. */
  register(fastify: FastifyInstance): void {
    const server = fastify.server as Server;
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (String(req.headers.upgrade).toLowerCase() !== 'websocket') return serveAsHttp(server, req, socket, head);
      this.upgrade(req, socket, head);
    });
    fastify.get(this.options.path, { config: { route: this.options.path } }, (_req, reply) => {
      void reply.header('upgrade', 'websocket').header('connection', 'upgrade');
      sendError(reply, ErrMqttUpgradeRequired.with({ path: this.options.path }));
    });
  }

  /** Closes every client's WebSocket (1001 going away: MQTT clients reconnect to another gateway) and refuses new ones. */
  close(): void {
    this.closing = true;
    for (const ws of this.open) ws.close(WS_CLOSE.goingAway, 'server shutting down');
    // Those that do not answer the close frame in time.
    setTimeout(() => this.open.forEach((ws) => ws.terminate()), 2000).unref();
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const path = (req.url ?? '').split('?')[0];
    if (path !== this.options.path) return refuseUpgrade(socket, new PlainStatus(Code.NotFound, 'Not Found'));
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    if (!offered.some((p) => MQTT_SUBPROTOCOLS.includes(p))) {
      mqttWebSocketsRefused.inc({ reason: 'subprotocol' });
      return refuseUpgrade(socket, ErrMqttSubprotocol.with({ offered: offered.join(', ').slice(0, 200) }));
    }
    const upstream = this.options.upstream;
    if (!upstream || this.closing) {
      mqttWebSocketsRefused.inc({ reason: 'unavailable' });
      return refuseUpgrade(socket, ErrMqttUnavailable.with());
    }
    upstream.open().then(
      (link) => {
        if (socket.destroyed || this.closing) return link.abort();
        let served = false;
        this.wss.handleUpgrade(req, socket, head, (ws) => {
          served = true;
          this.track(ws, upstream.kind);
          link.serve(mqttStreamOf(ws));
        });
        // `ws` completes or refuses the handshake at once (no verifyClient): refused, the link is not needed.
        if (!served) link.abort();
      },
      (err: Error) => {
        mqttWebSocketsRefused.inc({ reason: 'unavailable' });
        const heldBack = this.sampler.sample('unavailable');
        if (heldBack !== undefined)
          this.log?.warn({ error: err.message, held_back: heldBack }, 'MQTT over WebSocket refused: the MQTT server cannot be reached');
        refuseUpgrade(socket, ErrMqttUnavailable.with());
      },
    );
  }

  private track(ws: WebSocket, upstream: MqttUpstream['kind']): void {
    this.open.add(ws);
    mqttWebSockets.inc({ upstream });
    ws.once('close', () => {
      this.open.delete(ws);
      mqttWebSockets.dec({ upstream });
    });
  }
}

/**
 * An upgrade to something else than a WebSocket (`Upgrade: h2c`, which HTTP/2-capable clients
 * send on plain-HTTP requests): with an `upgrade` listener Node hands every such request over, so
 * it is given back to the HTTP server as it came, without its upgrade headers, on the same
 * connection, and answered as an ordinary HTTP/1.1 request (as before this listener existed).
 */
function serveAsHttp(server: Server, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const [name, value] = [req.rawHeaders[i], req.rawHeaders[i + 1]];
    const lower = name.toLowerCase();
    if (lower === 'upgrade' || lower === 'http2-settings') continue;
    if (lower === 'connection') {
      const kept = value
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t && !['upgrade', 'http2-settings'].includes(t.toLowerCase()));
      if (kept.length > 0) lines.push(`${name}: ${kept.join(', ')}`);
      continue;
    }
    lines.push(`${name}: ${value}`);
  }
  socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]));
  // An HTTPS server's HTTP layer listens on `secureConnection` (its `connection` is the TLS handshake's).
  server.emit((socket as Duplex & { encrypted?: boolean }).encrypted ? 'secureConnection' : 'connection', socket);
}
