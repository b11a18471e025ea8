import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** A way to an MQTT server, opened before the WebSocket upgrade: `serve` hands it the client's byte stream, `abort` gives it up. */
export interface MqttLink {
  serve(client: Duplex): void;
  abort(): void;
}

/**
 * Where the gateway's MQTT-over-WebSocket clients are served: the Application Server's MQTT
 * server. `open` rejects when it cannot be reached now (the upgrade is then answered 503).
 */
export interface MqttUpstream {
  readonly kind: 'in_process' | 'tcp';
  open(): Promise<MqttLink>;
}

/** The part of the AS's MQTT server a process running both takes WebSocket clients through. */
export interface MqttStreamServer {
  accept(stream: Duplex, transport: 'ws'): void;
}

/** The AS's MQTT server in this process (embedded, or `stack start gateway as …`): each client's stream goes to it directly, as its own connections' do. */
export function inProcessMqttUpstream(server: MqttStreamServer): MqttUpstream {
  const link: MqttLink = { serve: (client) => server.accept(client, 'ws'), abort: () => undefined };
  return { kind: 'in_process', open: async () => link };
}

/**
 * The AS's MQTT TCP listener at `host:port` (distributed mode: the Service in front of the AS
 * replicas): one TCP connection per client, opened before the upgrade, and the bytes piped both
 * ways. The AS sees an ordinary MQTT connection, so credentials, sessions and fan-out are its own.
 */
export function tcpMqttUpstream(address: { host: string; port: number }, connectTimeoutMs: number): MqttUpstream {
  return {
    kind: 'tcp',
    open: () =>
      new Promise<MqttLink>((resolve, reject) => {
        const socket = connect({ host: address.host, port: address.port, noDelay: true });
        const fail = (err: Error) => {
          socket.destroy();
          reject(err);
        };
        socket.setTimeout(connectTimeoutMs, () => fail(new Error(`no connection to ${address.host}:${address.port} within ${connectTimeoutMs} ms`)));
        socket.once('error', fail);
        socket.once('connect', () => {
          socket.setTimeout(0);
          socket.off('error', fail);
          resolve({ serve: (client) => splice(client, socket), abort: () => socket.destroy() });
        });
      }),
  };
}

/**
 * Pipes two byte streams into each other. One side ending ends the other once what it sent is
 * written (a CONNACK refusal reaches the client before its WebSocket closes); one side failing or
 * closing before its end destroys both.
 */
export function splice(client: Duplex, server: Socket): void {
  client.pipe(server);
  server.pipe(client);
  const destroyBoth = () => {
    client.destroy();
    server.destroy();
  };
  client.on('error', destroyBoth);
  server.on('error', destroyBoth);
  // The WebSocket closed (its stream is destroyed, not ended): the server hears a FIN after what it was sent.
  client.on('close', () => server.end());
  // The server closed: the client gets what came before it, then a close frame.
  server.on('close', () => client.end());
}
