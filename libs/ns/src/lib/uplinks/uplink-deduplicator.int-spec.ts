import { connect } from 'nats';
import { type PrivateService, startPrivateNats, TEST_NATS_URL, uniqueSuffix } from '@lorawan/testing';
import { DEDUP_BUCKET_MAX_BYTES, JetStreamUplinkDeduplicator } from './jetstream-uplink-deduplicator';
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

describe('JetStream KV deduplicator across a NATS restart (private NATS)', () => {
  let nats: PrivateService;
  const timing = { windowMs: 200, cooldownMs: 60_000 };

  beforeAll(async () => {
    nats = await startPrivateNats();
  });
  afterAll(async () => {
    await nats?.stop();
  });

  it('makes its memory-stored bucket again once NATS is back, and deduplicates as before', async () => {
    const bucket = `NS_UPLINKS_t${uniqueSuffix()}`;
    const dedup = await JetStreamUplinkDeduplicator.open({ natsUrl: nats.url, bucket });
    try {
      expect(await dedup.deduplicate('before', [{ gw: 1 }], timing)).toBe(true);
      await nats.kill();
      await nats.start();
      // The client reconnects by itself; the first uplinks after it find the bucket gone with the server's memory.
      // Both copies were received at the same moment (`at`), however long the first one waited for the bucket.
      const at = Date.now();
      let first: boolean | undefined;
      for (let attempt = 0; attempt < 50 && first === undefined; attempt++) {
        first = await dedup.deduplicate('after', [{ gw: 1 }], timing, at).catch(() => undefined);
        if (first === undefined) await new Promise((r) => setTimeout(r, 100));
      }
      expect(first).toBe(true);
      expect(await dedup.deduplicate('after', [{ gw: 2 }], timing, at)).toBe(false);
      expect(await dedup.accumulated('after')).toEqual([{ gw: 1 }, { gw: 2 }]);
      // Made again as it was: in memory, bounded.
      const nc = await connect({ servers: nats.url });
      try {
        const { config } = await (await nc.jetstreamManager()).streams.info(`KV_${bucket}`);
        expect(config).toMatchObject({ max_bytes: DEDUP_BUCKET_MAX_BYTES, storage: 'memory' });
      } finally {
        await nc.close();
      }
    } finally {
      await dedup.close();
    }
  });
});
