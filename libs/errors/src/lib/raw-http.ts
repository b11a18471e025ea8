import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type Code, httpStatusOf } from './codes';

/**
 * An HTTP/1.1 answer with a JSON body that closes the connection, as text to write straight on a
 * socket: for what is answered before (or instead of) Node's HTTP layer, a refused WebSocket
 * upgrade or a request Node could not parse.
 */
export function rawHttpResponse(status: number, body: string): string {
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Refuses a WebSocket upgrade with the error's HTTP status and body (the API's error shape): no WebSocket. */
export function refuseUpgrade(socket: Duplex, err: { code: Code; httpStatus?: number; toStatus(): unknown }): void {
  if (socket.destroyed) return;
  socket.end(rawHttpResponse(httpStatusOf(err), JSON.stringify(err.toStatus())));
}
