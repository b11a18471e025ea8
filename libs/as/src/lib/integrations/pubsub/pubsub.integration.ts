import { Inject, Injectable } from '@nestjs/common';
import type { ApplicationUpJson } from '@lorawan/api';
import type { ApplicationIntegration } from '../application-integration';
import { PubSubConnections } from './pubsub-connections.service';

/**
 * The Pub/Sub integration (TTS `pkg/applicationserver/io/pubsub`): every ApplicationUp goes to the
 * application's Pub/Subs that enable its kind, on this replica's connections. It resolves at once:
 * a message is handed to the brokers' clients, never awaited (a slow or dead broker must not hold
 * the uplink path), and one whose connection is down is dropped and counted.
 */
@Injectable()
export class PubSubIntegration implements ApplicationIntegration {
  readonly name = 'pubsub';

  constructor(@Inject(PubSubConnections) private readonly connections: PubSubConnections) {}

  async publish(up: ApplicationUpJson): Promise<void> {
    this.connections.publish(up);
  }
}
