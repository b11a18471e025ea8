import { mqttMessages } from '@lorawan/observability';
import type { ApplicationUpKind } from '@lorawan/api';
import type { MqttConnection } from './mqtt-connection';
import { type BufferedMessage, SessionBuffer, type SessionBufferOptions } from './session-buffer';
import { topicMatches, upTopic } from './topics';

/** One MQTT session: its client, subscriptions and unacknowledged QoS 1 messages. */
export interface MqttSession {
  key: string;
  applicationId: string;
  uid: string;
  clientId: string;
  /** Filter → granted QoS. */
  subscriptions: Map<string, 0 | 1>;
  buffer: SessionBuffer;
  /** How long it outlives its connection (0: it ends with it). */
  expiryMs: number;
  connection?: MqttConnection;
  /** Set while no client is connected: when it ends. */
  expiresAt?: number;
}

export interface SessionsOptions extends SessionBufferOptions {
  /** Called when the first session of an application starts and when its last one ends (the transport subscription follows). */
  onApplication(applicationId: string, active: boolean): void;
}

/**
 * The MQTT sessions of one AS replica, by application UID and client ID (MQTT 3.1.1 §3.1.2.4): a
 * clean one ends with its connection; a persistent one (3.1.1 clean session false, MQTT 5 session
 * expiry) outlives it for its expiry (at most `maxAgeMs`) and keeps buffering the QoS 1 messages
 * of its subscriptions, which its client gets when it comes back (to this replica). A new
 * connection with the client ID of a connected one takes the session over.
 */
export class MqttSessions {
  private readonly sessions = new Map<string, MqttSession>();
  /** Sessions per application ID. */
  private readonly byApplication = new Map<string, Set<MqttSession>>();

  constructor(private readonly options: SessionsOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Binds a connection to its session; a clean start discards the one there was. Expiry capped by `maxAgeMs`. */
  attach(conn: MqttConnection, request: { clean: boolean; expiryMs: number }): { session: MqttSession; sessionPresent: boolean; expiryMs: number } {
    const admission = conn.admission;
    if (!admission) throw new Error('attach before CONNECT was admitted');
    const key = `${admission.uid}\n${conn.clientId}`;
    const expiryMs = Math.min(request.expiryMs, this.options.maxAgeMs);
    let session = this.sessions.get(key);
    if (session?.connection && session.connection !== conn) {
      const previous = session.connection;
      session.connection = undefined;
      previous.disconnect(0x8e, 'session taken over');
    }
    if (session && request.clean) {
      this.end(session);
      session = undefined;
    }
    const sessionPresent = session !== undefined;
    if (!session) {
      session = {
        key,
        applicationId: admission.applicationId,
        uid: admission.uid,
        clientId: conn.clientId,
        subscriptions: new Map(),
        buffer: new SessionBuffer(this.options),
        expiryMs,
      };
      this.sessions.set(key, session);
      let app = this.byApplication.get(session.applicationId);
      if (!app) {
        app = new Set();
        this.byApplication.set(session.applicationId, app);
        this.options.onApplication(session.applicationId, true);
      }
      app.add(session);
    }
    session.expiryMs = expiryMs;
    session.connection = conn;
    session.expiresAt = undefined;
    return { session, sessionPresent, expiryMs };
  }

  /** The connection's session, if it still holds it. */
  of(conn: MqttConnection): MqttSession | undefined {
    const admission = conn.admission;
    const session = admission && this.sessions.get(`${admission.uid}\n${conn.clientId}`);
    return session?.connection === conn ? session : undefined;
  }

  /** The connection is gone: its session ends, or waits for its client until its expiry. */
  detach(conn: MqttConnection, now: number): void {
    const session = this.of(conn);
    if (!session) return;
    session.connection = undefined;
    if (session.expiryMs <= 0) this.end(session);
    else session.expiresAt = now + session.expiryMs;
  }

  /** The QoS 1 messages of the connection's session to (re)send now. */
  pending(conn: MqttConnection, now: number): BufferedMessage[] {
    const session = this.of(conn);
    if (!session) return [];
    const { messages, expired } = session.buffer.pending(now);
    if (expired) mqttMessages.inc({ direction: 'dropped' }, expired);
    return messages;
  }

  /**
   * An application message, to every session of the application with a matching subscription: QoS 1
   * ones buffer it (and send it when their client is connected), QoS 0 ones send it to a connected
   * client only. The highest QoS of the session's matching subscriptions applies (one copy per
   * session, MQTT 3.1.1 §3.3.5).
   */
  deliver(applicationId: string, deviceId: string, kind: ApplicationUpKind, payload: Buffer, now: number): void {
    for (const session of this.byApplication.get(applicationId) ?? []) {
      const topic = upTopic(session.uid, deviceId, kind);
      let qos: 0 | 1 | undefined;
      for (const [filter, granted] of session.subscriptions) if (topicMatches(filter, topic) && (qos === undefined || granted > qos)) qos = granted;
      if (qos === undefined) continue;
      const conn = session.connection;
      if (qos === 0) {
        conn?.publish(topic, payload);
        continue;
      }
      const { message, dropped } = session.buffer.add(topic, payload, now);
      if (dropped) mqttMessages.inc({ direction: 'dropped' }, dropped);
      conn?.publish(topic, payload, message);
    }
  }

  /** Ends the sessions whose client stayed away past their expiry, and drops expired messages of the others. */
  sweep(now: number): void {
    for (const session of this.sessions.values()) {
      if (session.expiresAt !== undefined && session.expiresAt <= now) {
        this.end(session);
        continue;
      }
      const expired = session.buffer.expire(now);
      if (expired) mqttMessages.inc({ direction: 'dropped' }, expired);
    }
  }

  /** Every connected client (for access invalidations). */
  *connections(): Iterable<MqttConnection> {
    for (const session of this.sessions.values()) if (session.connection) yield session.connection;
  }

  clear(): void {
    for (const session of [...this.sessions.values()]) this.end(session);
  }

  private end(session: MqttSession): void {
    if (this.sessions.get(session.key) !== session) return;
    this.sessions.delete(session.key);
    session.buffer.clear();
    const app = this.byApplication.get(session.applicationId);
    app?.delete(session);
    if (app && app.size === 0) {
      this.byApplication.delete(session.applicationId);
      this.options.onApplication(session.applicationId, false);
    }
  }
}
