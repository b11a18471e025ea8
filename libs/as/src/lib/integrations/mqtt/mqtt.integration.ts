import { Inject, Injectable } from '@nestjs/common';
import { type ApplicationUpJson, applicationUpKind } from '@lorawan/api';
import { type PubSub, PUBSUB } from '@lorawan/transport';
import type { ApplicationIntegration } from '../application-integration';

/** The transport subject of an application message for the MQTT servers: `as.mqtt.up.<application>.<device>.<kind>` (IDs hold no dots). */
export function mqttUpSubject(applicationId: string, deviceId: string, kind: string): string {
  return `as.mqtt.up.${applicationId}.${deviceId}.${kind}`;
}

/** Every application message of one application, for a replica with MQTT sessions of it. */
export function mqttApplicationSubjects(applicationId: string): string {
  return `as.mqtt.up.${applicationId}.>`;
}

/**
 * The MQTT server's side of the integrations list (TTS `io/mqtt`): every ApplicationUp is broadcast
 * on the transport (NATS, or in process embedded) on its application's subject, as the JSON the
 * clients receive, so the MQTT server of every AS replica delivers it to its own clients, whichever
 * replica handled the message. Fire and forget: the broadcast does not wait for anyone.
 */
@Injectable()
export class MqttIntegration implements ApplicationIntegration {
  readonly name = 'mqtt';

  constructor(@Inject(PUBSUB) private readonly pubsub: PubSub) {}

  async publish(up: ApplicationUpJson): Promise<void> {
    const kind = applicationUpKind(up);
    if (!kind) return;
    const ids = up.end_device_ids;
    this.pubsub.publish(mqttUpSubject(ids.application_ids.application_id, ids.device_id, kind), Buffer.from(JSON.stringify(up)), { deferrable: true });
  }
}
