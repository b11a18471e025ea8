import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Requests whose `Expect: 100-continue` got no 100 (Continue): their client holds the body back. */
const continueRefused = new WeakSet<IncomingMessage>();

/**
 * `Expect: 100-continue` (RFC 9110 §10.1.1): a request whose Content-Length is over `bodyLimit`
 * gets no 100 (Continue), so its client never sends the body and reads the 413 its route answers
 * (the connection closes after it); any other is told to go on, as Node does by itself.
 */
export function answerExpectContinue(server: Server, bodyLimit: number): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (Number(req.headers['content-length']) > bodyLimit) {
      continueRefused.add(req);
      res.shouldKeepAlive = false;
    } else {
      res.writeContinue();
    }
    server.emit('request', req, res);
  });
}

/**
 * Calls `answer` (an oversized body's 413) when its client can read it: a client still sending
 * when the server closes gets a reset and never reads the answer (`EPIPE`, curl's "Send failure:
 * Broken pipe"). So the rest of the body is read and discarded first, up to `drainBytes`; a longer
 * body (by its Content-Length, or as it comes), a client waiting for 100 (Continue), and a body
 * received whole are answered at once.
 */
export function afterBody(req: IncomingMessage, drainBytes: number, answer: () => void): void {
  if (continueRefused.has(req) || req.complete || Number(req.headers['content-length']) > drainBytes) return answer();
  let drained = 0;
  let answered = false;
  const finish = () => {
    if (answered) return;
    answered = true;
    req.off('data', onData).off('end', finish).off('error', finish).off('close', finish);
    answer();
  };
  const onData = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > drainBytes) finish();
  };
  req.on('data', onData).once('end', finish).once('error', finish).once('close', finish);
  req.resume();
}
