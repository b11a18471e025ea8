import type { Duplex } from 'node:stream';
import { Logger } from '@nestjs/common';
import * as mqtt from 'mqtt-packet';
import { type CallerIdentity, ID_MAX_LENGTH, ID_PATTERN, newUlid, Right } from '@lorawan/api';
import { mqttMessages } from '@lorawan/observability';
import type { BufferedMessage } from './session-buffer';
import { acceptedFilter, type DownlinkOperation, parseDownlinkTopic } from './topics';

/** What a client may do, from its key's rights on its application (TTS `io/mqtt` Connect). */
export interface TopicAccess {
  /** RIGHT_APPLICATION_TRAFFIC_READ: subscribe to the application's topics. */
  read: boolean;
  /** RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE: publish downlinks. */
  write: boolean;
}

export function topicAccess(caller: CallerIdentity): TopicAccess {
  return { read: caller.rights.includes(Right.RIGHT_APPLICATION_TRAFFIC_READ), write: caller.rights.includes(Right.RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE) };
}

/** Why a CONNECT is refused: each maps to a 3.1.1 return code and an MQTT 5 reason code. */
export type ConnectRefusal = 'bad_credentials' | 'not_authorized' | 'unavailable' | 'identifier_rejected';

const CONNACK_CODES: Record<ConnectRefusal, { v4: number; v5: number }> = {
  identifier_rejected: { v4: 2, v5: 0x85 },
  unavailable: { v4: 3, v5: 0x88 },
  bad_credentials: { v4: 4, v5: 0x86 },
  not_authorized: { v4: 5, v5: 0x87 },
};

/** MQTT 5 reason codes this server answers with. */
const REASON = { success: 0, noSubscriptionExisted: 0x11, unspecified: 0x80, notAuthorized: 0x87, topicNameInvalid: 0x90, payloadFormatInvalid: 0x99 };
/** 3.1.1 SUBACK failure. */
const SUBACK_FAILURE = 0x80;

/** A client's CONNECT, checked: the application, the UID its topics use, the caller and its access. */
export interface Admission {
  applicationId: string;
  uid: string;
  /** `Bearer <key>`, kept to check the key again when the IS says it changed; never logged. */
  authorization: string;
  caller: CallerIdentity;
  access: TopicAccess;
}

/** What the server does for a connection: admission, sessions, downlinks. */
export interface ConnectionHost {
  /** Resolves the credentials of a CONNECT, or the refusal. */
  admit(username: string | undefined, password: Buffer | undefined): Promise<Admission | ConnectRefusal>;
  /** Binds the connection to its session (taking it over from another connection); whether one was present. */
  attach(conn: MqttConnection, request: { clean: boolean; expiryMs: number }): { sessionPresent: boolean; expiryMs: number };
  detach(conn: MqttConnection): void;
  subscribe(conn: MqttConnection, filter: string, qos: 0 | 1): void;
  unsubscribe(conn: MqttConnection, filter: string): boolean;
  acknowledge(conn: MqttConnection, packetId: number): void;
  /** The session's QoS 1 messages to (re)send after CONNACK. */
  pending(conn: MqttConnection): BufferedMessage[];
  downlink(conn: MqttConnection, deviceId: string, operation: DownlinkOperation, payload: Buffer): Promise<'ok' | 'invalid'>;
}

/** A connection must send CONNECT within this long. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Bytes a client may have unsent (a slow reader) before its QoS 0 messages are dropped. */
const MAX_UNSENT_BYTES = 4 * 1024 * 1024;

/** How a client reached the server: MQTT_PORT, MQTT_TLS_PORT, or a WebSocket on the gateway's HTTP port. */
export type MqttTransport = 'tcp' | 'tls' | 'ws';

/**
 * One MQTT client connection (TCP, TLS or a WebSocket's byte stream), MQTT 3.1, 3.1.1 or 5, parsed and written with
 * mqtt-packet: CONNECT with the application as username and an API key as password, SUBSCRIBE to
 * the application's topics (QoS 0 or 1: QoS 2 is granted as 1), PUBLISH of downlinks (push,
 * replace), PUBACK of the QoS 1 messages it received, PINGREQ and DISCONNECT. Keep-alive: no packet
 * within 1.5 × the client's keep-alive closes it. Credentials are never logged.
 */
export class MqttConnection {
  private readonly logger = new Logger('MqttServer');
  private readonly parser = mqtt.parser();
  private state: 'connecting' | 'authenticating' | 'connected' | 'closed' = 'connecting';
  /** Packets that came while the CONNECT was being checked. */
  private readonly early: mqtt.Packet[] = [];
  private keepAliveTimer?: NodeJS.Timeout;
  private keepAliveMs = 0;
  protocolVersion: 3 | 4 | 5 = 4;
  clientId = '';
  admission?: Admission;
  /** Called once when the connection is gone. */
  onClose?: () => void;

  constructor(
    readonly socket: Duplex,
    readonly transport: MqttTransport,
    private readonly host: ConnectionHost,
  ) {
    this.parser.on('packet', (packet) => this.received(packet));
    this.parser.on('error', (err: Error) => this.close(`protocol error: ${err.message}`));
    socket.on('data', (data: Buffer) => this.parser.parse(data));
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
    this.armKeepAlive(CONNECT_TIMEOUT_MS);
  }

  get connected(): boolean {
    return this.state === 'connected';
  }

  /** Sends an application message: QoS 0 (skipped for a client that does not read fast enough), or a buffered QoS 1 one. */
  publish(topic: string, payload: Buffer, message?: BufferedMessage): void {
    if (!this.connected) return;
    if (!message && this.socket.writableLength > MAX_UNSENT_BYTES) {
      mqttMessages.inc({ direction: 'dropped' });
      return;
    }
    const dup = message?.sent ?? false;
    if (message) message.sent = true;
    this.write({ cmd: 'publish', topic, payload, qos: message ? 1 : 0, dup, retain: false, ...(message ? { messageId: message.packetId } : {}) });
    mqttMessages.inc({ direction: 'out' });
  }

  /** Ends the connection; MQTT 5 clients are told why first (a DISCONNECT with `reasonCode`). */
  disconnect(reasonCode: number, reason: string): void {
    if (this.state === 'closed') return;
    if (this.protocolVersion === 5 && this.connected) this.write({ cmd: 'disconnect', reasonCode });
    this.close(reason);
  }

  private received(packet: mqtt.Packet): void {
    if (this.state === 'closed') return;
    if (this.state === 'connecting') {
      if (packet.cmd !== 'connect') return this.close('first packet not CONNECT');
      this.state = 'authenticating';
      void this.connect(packet);
      return;
    }
    if (this.state === 'authenticating') {
      this.early.push(packet);
      return;
    }
    this.armKeepAlive(this.keepAliveMs);
    switch (packet.cmd) {
      case 'subscribe':
        return this.subscribe(packet);
      case 'unsubscribe':
        return this.unsubscribe(packet);
      case 'publish':
        void this.published(packet);
        return;
      case 'puback':
        if (packet.messageId !== undefined) this.host.acknowledge(this, packet.messageId);
        return;
      case 'pubrel':
        this.write({ cmd: 'pubcomp', messageId: packet.messageId });
        return;
      case 'pingreq':
        this.write({ cmd: 'pingresp' });
        return;
      case 'disconnect':
        return this.close();
      case 'connect':
        return this.close('second CONNECT');
      // Server-to-client packets, QoS 2 acknowledgments of messages this server never sends at QoS 2, AUTH (no extended authentication).
      case 'connack':
      case 'suback':
      case 'unsuback':
      case 'pingresp':
      case 'pubrec':
      case 'pubcomp':
      case 'auth':
        return;
    }
  }

  private async connect(packet: mqtt.IConnectPacket): Promise<void> {
    this.protocolVersion = packet.protocolVersion ?? 4;
    if (this.protocolVersion === 5) (this.parser as unknown as { settings: { protocolVersion: number } }).settings.protocolVersion = 5;
    const clean = packet.clean ?? true;
    let clientId = packet.clientId ?? '';
    if (!clientId) {
      // MQTT 3.1.1 §3.1.3.1: an empty ClientId only with a clean session; the server assigns one.
      if (!clean && this.protocolVersion !== 5) return this.refuse('identifier_rejected');
      clientId = `as-mqtt-${newUlid()}`;
    }
    this.clientId = clientId;
    let admission: Admission | ConnectRefusal;
    try {
      admission = await this.host.admit(packet.username, packet.password);
    } catch (err) {
      this.logger.warn({ error: (err as Error)?.message ?? String(err) }, 'MQTT CONNECT not checked');
      admission = 'unavailable';
    }
    if (this.state === 'closed') return;
    if (typeof admission === 'string') return this.refuse(admission);
    this.admission = admission;
    const v5 = this.protocolVersion === 5;
    // MQTT 5: the session lasts `sessionExpiryInterval` s (0: ends with the connection); 3.1.1: clean session false lasts.
    const expiryRequested = v5 ? (packet.properties?.sessionExpiryInterval ?? 0) * 1000 : clean ? 0 : Infinity;
    const { sessionPresent, expiryMs } = this.host.attach(this, { clean, expiryMs: expiryRequested });
    this.state = 'connected';
    this.keepAliveMs = (packet.keepalive ?? 0) * 1500;
    this.armKeepAlive(this.keepAliveMs);
    this.write({
      cmd: 'connack',
      sessionPresent,
      ...(v5
        ? {
            reasonCode: 0,
            properties: {
              maximumQoS: 1,
              retainAvailable: false,
              sharedSubscriptionAvailable: false,
              subscriptionIdentifiersAvailable: false,
              wildcardSubscriptionAvailable: true,
              ...(packet.clientId ? {} : { assignedClientIdentifier: clientId }),
              ...(expiryMs !== expiryRequested ? { sessionExpiryInterval: Math.floor(expiryMs / 1000) } : {}),
            },
          }
        : { returnCode: 0 }),
    });
    for (const message of this.host.pending(this)) this.publish(message.topic, message.payload, message);
    for (const early of this.early.splice(0)) this.received(early);
  }

  private refuse(refusal: ConnectRefusal): void {
    const code = CONNACK_CODES[refusal];
    this.write(
      this.protocolVersion === 5
        ? { cmd: 'connack', sessionPresent: false, reasonCode: code.v5 }
        : { cmd: 'connack', sessionPresent: false, returnCode: code.v4 },
    );
    this.close(`CONNECT refused: ${refusal}`);
  }

  private subscribe(packet: mqtt.ISubscribePacket): void {
    const granted = packet.subscriptions.map(({ topic, qos }) => {
      const admission = this.admission as Admission;
      const filter = admission.access.read ? acceptedFilter(admission.uid, topic) : undefined;
      if (!filter) return this.protocolVersion === 5 ? REASON.notAuthorized : SUBACK_FAILURE;
      const grantedQos = qos >= 1 ? 1 : 0;
      this.host.subscribe(this, filter, grantedQos);
      return grantedQos;
    });
    this.write({ cmd: 'suback', messageId: packet.messageId, granted });
  }

  private unsubscribe(packet: mqtt.IUnsubscribePacket): void {
    const uid = (this.admission as Admission).uid;
    const codes = packet.unsubscriptions.map((topic) => {
      const filter = acceptedFilter(uid, topic);
      return filter && this.host.unsubscribe(this, filter) ? REASON.success : REASON.noSubscriptionExisted;
    });
    this.write(
      this.protocolVersion === 5
        ? { cmd: 'unsuback', messageId: packet.messageId, granted: codes }
        : { cmd: 'unsuback', messageId: packet.messageId, granted: [] },
    );
  }

  /** A client's PUBLISH: a downlink push or replace of one of its application's devices (TTS `deliver`), acknowledged once handled. */
  private async published(packet: mqtt.IPublishPacket): Promise<void> {
    mqttMessages.inc({ direction: 'in' });
    const admission = this.admission as Admission;
    const target = parseDownlinkTopic(admission.uid, packet.topic);
    let reason = REASON.success;
    if (!target) reason = REASON.topicNameInvalid;
    else if (!admission.access.write) reason = REASON.notAuthorized;
    else {
      try {
        const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload;
        if ((await this.host.downlink(this, target.deviceId, target.operation, payload)) === 'invalid') reason = REASON.payloadFormatInvalid;
      } catch (err) {
        // The queue's own answer (no session, the NS refused, …): reported as a downlink_failed message and an event already.
        this.logger.warn(
          { application_id: admission.applicationId, device_id: target.deviceId, error: (err as Error)?.message ?? String(err) },
          'MQTT downlink not queued',
        );
        reason = REASON.unspecified;
      }
    }
    if (this.state !== 'connected') return;
    const v5 = this.protocolVersion === 5 ? { reasonCode: reason } : {};
    if (packet.qos === 1) this.write({ cmd: 'puback', messageId: packet.messageId, ...v5 });
    if (packet.qos === 2) this.write({ cmd: 'pubrec', messageId: packet.messageId, ...v5 });
  }

  private write(packet: mqtt.Packet): void {
    if (this.socket.destroyed) return;
    this.socket.write(mqtt.generate(packet, { protocolVersion: this.protocolVersion }));
  }

  private armKeepAlive(ms: number): void {
    if (this.keepAliveTimer) clearTimeout(this.keepAliveTimer);
    this.keepAliveTimer = ms > 0 ? setTimeout(() => this.close('keep-alive expired'), ms) : undefined;
    this.keepAliveTimer?.unref();
  }

  private close(reason?: string): void {
    if (this.state === 'closed') return;
    const wasConnected = this.state === 'connected';
    this.state = 'closed';
    if (this.keepAliveTimer) clearTimeout(this.keepAliveTimer);
    if (reason) this.logger.debug({ client_id: this.clientId, reason }, 'MQTT connection closed');
    this.socket.end();
    (this.socket as Duplex & { destroySoon?: () => void }).destroySoon?.();
    if (wasConnected) this.host.detach(this);
    this.onClose?.();
  }
}

/** `{application}` or `{application}@{tenant}` (the configured tenant only) → the application ID and the UID its topics use. */
export function parseUsername(username: string | undefined, tenantId: string | undefined): { applicationId: string; uid: string } | undefined {
  if (!username) return undefined;
  const at = username.indexOf('@');
  const applicationId = at < 0 ? username : username.slice(0, at);
  if (at >= 0 && (!tenantId || username.slice(at + 1) !== tenantId)) return undefined;
  if (applicationId.length > ID_MAX_LENGTH || !ID_PATTERN.test(applicationId)) return undefined;
  return { applicationId, uid: username };
}
