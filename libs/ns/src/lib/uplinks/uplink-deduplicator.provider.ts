import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { dedupBucketName, JetStreamUplinkDeduplicator } from './jetstream-uplink-deduplicator';
import { InMemoryUplinkDeduplicator, UPLINK_DEDUPLICATOR, type UplinkDeduplicator } from './uplink-deduplicator';

/** Closes the deduplicator (its NATS connection) when the NS stops. */
@Injectable()
export class UplinkDeduplicatorLifecycle implements OnApplicationShutdown {
  constructor(@Inject(UPLINK_DEDUPLICATOR) private readonly dedup: UplinkDeduplicator) {}

  async onApplicationShutdown(): Promise<void> {
    await this.dedup.close();
  }
}

/** The deduplicator every NS replica shares: JetStream KV when distributed (NATS_URL), the process's memory when embedded. */
export const UPLINK_DEDUPLICATOR_PROVIDERS: Provider[] = [
  {
    provide: UPLINK_DEDUPLICATOR,
    inject: [STACK_CONFIG],
    useFactory: (config: StackConfig): Promise<UplinkDeduplicator> | UplinkDeduplicator =>
      config.natsUrl
        ? JetStreamUplinkDeduplicator.open({
            natsUrl: config.natsUrl,
            security: config.natsSecurity,
            bucket: dedupBucketName(config.natsSubjectPrefix),
            subjectPrefix: config.natsSubjectPrefix ? `${config.natsSubjectPrefix}.` : undefined,
          })
        : new InMemoryUplinkDeduplicator(),
  },
  UplinkDeduplicatorLifecycle,
];
