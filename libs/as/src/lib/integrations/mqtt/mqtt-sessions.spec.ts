import type { Admission, MqttConnection } from './mqtt-connection';
import { MqttSessions } from './mqtt-sessions';

/** A connection as the sessions see it: its client ID, admission, and what it was sent. */
function connection(clientId: string, applicationId = 'app') {
  const sent: Array<{ topic: string; qos: 0 | 1; packetId?: number; dup: boolean }> = [];
  const disconnects: number[] = [];
  const conn = {
    clientId,
    admission: { applicationId, uid: applicationId } as Admission,
    publish: (topic: string, _payload: Buffer, message?: { packetId: number; sent: boolean }) => {
      sent.push({ topic, qos: message ? 1 : 0, packetId: message?.packetId, dup: message?.sent ?? false });
      if (message) message.sent = true;
    },
    disconnect: (code: number) => disconnects.push(code),
  };
  return { conn: conn as unknown as MqttConnection, sent, disconnects };
}

describe('MqttSessions', () => {
  const follows: Array<[string, boolean]> = [];
  const make = () => new MqttSessions({ maxMessages: 10, maxAgeMs: 60_000, onApplication: (app, active) => follows.push([app, active]) });
  const payload = Buffer.from('{}');

  beforeEach(() => (follows.length = 0));

  it('delivers to matching subscriptions once per session at their highest QoS; QoS 0 only while connected', () => {
    const sessions = make();
    const a = connection('a');
    sessions.attach(a.conn, { clean: true, expiryMs: 0 });
    sessions.of(a.conn)?.subscriptions.set('v3/app/#', 0).set('v3/app/devices/+/up', 1);
    sessions.deliver('app', 'dev', 'uplink_message', payload, 0);
    sessions.deliver('app', 'dev', 'join_accept', payload, 0);
    sessions.deliver('other', 'dev', 'uplink_message', payload, 0);
    expect(a.sent).toEqual([
      { topic: 'v3/app/devices/dev/up', qos: 1, packetId: 1, dup: false },
      { topic: 'v3/app/devices/dev/join', qos: 0, packetId: undefined, dup: false },
    ]);
    expect(follows).toEqual([['app', true]]);
    sessions.detach(a.conn, 0);
    expect([sessions.size, follows]).toEqual([
      0,
      [
        ['app', true],
        ['app', false],
      ],
    ]);
  });

  it('keeps a persistent session: what came while away and what was not acknowledged is sent again, DUP where it was sent', () => {
    const sessions = make();
    const first = connection('p');
    expect(sessions.attach(first.conn, { clean: false, expiryMs: Infinity })).toMatchObject({ sessionPresent: false, expiryMs: 60_000 });
    sessions.of(first.conn)?.subscriptions.set('v3/app/devices/+/up', 1);
    sessions.deliver('app', 'd', 'uplink_message', payload, 0);
    sessions.deliver('app', 'e', 'uplink_message', payload, 0);
    sessions.of(first.conn)?.buffer.ack(1);
    sessions.detach(first.conn, 0);
    sessions.deliver('app', 'f', 'uplink_message', payload, 10);
    const again = connection('p');
    expect(sessions.attach(again.conn, { clean: false, expiryMs: Infinity }).sessionPresent).toBe(true);
    expect(sessions.pending(again.conn, 20).map((m) => [m.topic, m.packetId, m.sent])).toEqual([
      ['v3/app/devices/e/up', 2, true],
      ['v3/app/devices/f/up', 3, false],
    ]);
    // Past its expiry without a client, the session ends.
    sessions.detach(again.conn, 100);
    sessions.sweep(100 + 60_000);
    expect(sessions.size).toBe(0);
  });

  it('a new connection with the same client ID takes the session over; a clean start discards it', () => {
    const sessions = make();
    const first = connection('t');
    sessions.attach(first.conn, { clean: false, expiryMs: 1000 });
    sessions.of(first.conn)?.subscriptions.set('v3/app/#', 1);
    const second = connection('t');
    expect(sessions.attach(second.conn, { clean: false, expiryMs: 1000 }).sessionPresent).toBe(true);
    expect(first.disconnects).toEqual([0x8e]);
    expect(sessions.of(first.conn)).toBeUndefined();
    const clean = connection('t');
    expect(sessions.attach(clean.conn, { clean: true, expiryMs: 0 }).sessionPresent).toBe(false);
    expect(sessions.of(clean.conn)?.subscriptions.size).toBe(0);
  });
});
