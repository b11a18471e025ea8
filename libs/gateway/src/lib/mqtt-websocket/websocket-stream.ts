import { Duplex } from 'node:stream';
import WebSocket from 'ws';

/** WebSocket close codes (RFC 6455 §7.4.1) this bridge closes with. */
export const WS_CLOSE = { normal: 1000, goingAway: 1001, unsupportedData: 1003, internalError: 1011 } as const;

/**
 * A WebSocket as the byte stream MQTT runs on (MQTT 3.1.1 §6, MQTT 5 §6): the payloads of its
 * binary messages in, writes out as binary messages, with backpressure both ways (a full read
 * buffer pauses the WebSocket's socket). Any other data frame is a protocol error: the WebSocket
 * closes with 1003 and the stream is destroyed without passing it on. Ending the stream closes the
 * WebSocket with 1000 once what was written is sent; destroying it closes with 1001 (1011 for an
 * error); the WebSocket closing, or failing (a malformed frame, a message over `maxPayload`: `ws`
 * answers those with 1002 or 1009 itself), destroys the stream.
 */
export function mqttStreamOf(ws: WebSocket): Duplex {
  const stream = new Duplex({
    read() {
      if (ws.isPaused) ws.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      ws.send(chunk, { binary: true }, callback);
    },
    final(callback) {
      closeOnce(ws, WS_CLOSE.normal);
      callback();
    },
    destroy(err, callback) {
      closeOnce(ws, err ? WS_CLOSE.internalError : WS_CLOSE.goingAway);
      callback(err);
    },
  });
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (stream.destroyed) return;
    if (!isBinary) {
      closeOnce(ws, WS_CLOSE.unsupportedData, 'MQTT packets go in binary frames');
      stream.destroy();
      return;
    }
    if (!stream.push(data)) ws.pause();
  });
  ws.on('close', () => stream.destroy());
  ws.on('error', () => stream.destroy());
  return stream;
}

function closeOnce(ws: WebSocket, code: number, reason?: string): void {
  if (ws.readyState === WebSocket.OPEN) ws.close(code, reason);
}
