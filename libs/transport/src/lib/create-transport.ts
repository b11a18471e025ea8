import { InProcessTransport } from './in-process.transport';
import { NatsTransport } from './nats.transport';
import type { Transport } from './transport';

/** NATS when a URL is configured, otherwise in-process (embedded mode). */
export async function createTransport(config: { natsUrl?: string; natsSubjectPrefix?: string }, name: string): Promise<Transport> {
  return config.natsUrl ? NatsTransport.connect(config.natsUrl, name, config.natsSubjectPrefix) : new InProcessTransport();
}
