import { connect } from 'nats';
import { TEST_NATS_URL, uniqueSuffix } from '@lorawan/testing';
import { JetStreamUplinkDeduplicator } from './jetstream-uplink-deduplicator';
import { describeDeduplicatorConformance } from './uplink-deduplicator.conformance';
import { InMemoryUplinkDeduplicator } from './uplink-deduplicator';

describeDeduplicatorConformance('in memory, one process', async () => {
  const shared = new InMemoryUplinkDeduplicator();
  return { a: shared, b: shared, close: () => shared.close() };
});

describeDeduplicatorConformance('JetStream KV, two replicas', async () => {
  const bucket = `NS_UPLINKS_t${uniqueSuffix()}`;
  const a = await JetStreamUplinkDeduplicator.open({ natsUrl: TEST_NATS_URL, bucket });
  const b = await JetStreamUplinkDeduplicator.open({ natsUrl: TEST_NATS_URL, bucket });
  return {
    a,
    b,
    close: async () => {
      await a.close();
      await b.close();
      // The suite's bucket is not left behind.
      const nc = await connect({ servers: TEST_NATS_URL });
      await (await nc.jetstreamManager()).streams.delete(`KV_${bucket}`).catch(() => undefined);
      await nc.close();
    },
  };
});
