import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { KeyVault, parseKeks, SecretBox } from '@lorawan/crypto';
import { EndDevicesModule } from '../../end-devices/end-devices.module';
import { PubSubRegistryController } from './pubsub-registry.controller';
import { PubSubRegistryService } from './pubsub-registry.service';
import { PUBSUB_STORE, SqlPubSubStore } from './pubsub.store';
import { PUBSUB_CHANGES } from './pubsub-changes';
import { PUBSUB_DRIVERS, PubSubConnections, type PubSubDrivers } from './pubsub-connections.service';
import { PubSubIntegration } from './pubsub.integration';
import { MqttProviderDriver } from './providers/mqtt.provider';
import { NatsProviderDriver } from './providers/nats.provider';

/**
 * The Pub/Sub integration (TTS `pkg/applicationserver/io/pubsub`): the registry (its store on the
 * AS database, secrets sealed with `AS_KEK_LABEL`; its RPC handlers), this replica's connections
 * to the users' brokers (NATS, MQTT) and the integration that publishes to them. Its downlink
 * entry point is PubSubDownlinksModule.
 */
@Module({
  imports: [EndDevicesModule],
  controllers: [PubSubRegistryController],
  providers: [
    {
      provide: PUBSUB_STORE,
      inject: [DataSource, STACK_CONFIG],
      useFactory: (ds: DataSource, config: StackConfig) => new SqlPubSubStore(ds, new SecretBox(new KeyVault(parseKeks(config.keks)), config.kekLabels.as)),
    },
    { provide: PUBSUB_DRIVERS, useValue: { nats: new NatsProviderDriver(), mqtt: new MqttProviderDriver() } satisfies PubSubDrivers },
    PubSubConnections,
    { provide: PUBSUB_CHANGES, useExisting: PubSubConnections },
    PubSubRegistryService,
    PubSubIntegration,
  ],
  exports: [PubSubIntegration, PubSubConnections],
})
export class PubSubModule {}
