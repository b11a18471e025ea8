import { InProcessTransport } from './in-process.transport';
import { NatsTransport } from './nats.transport';
import type { Transport } from './transport';

/** NATS when a URL is configured, otherwise in-process (embedded mode). */
export async function createTransport(natsUrl: string | undefined, name: string): Promise<Transport> {
  return natsUrl ? NatsTransport.connect(natsUrl, name) : new InProcessTransport();
}
