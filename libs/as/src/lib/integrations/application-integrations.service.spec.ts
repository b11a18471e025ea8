import type { ApplicationUpJson } from '@lorawan/api';
import { integrationPublishFailures } from '@lorawan/observability';
import type { ApplicationIntegration } from './application-integration';
import { ApplicationIntegrations } from './application-integrations.service';

const up: ApplicationUpJson = {
  end_device_ids: { device_id: 'dev', application_ids: { application_id: 'app' } },
  correlation_ids: ['as:up:1'],
  uplink_message: { f_port: 1 },
};

/** An integration that records what it got, or fails as told. */
function integration(name: string, behaviour: 'ok' | 'throws' | 'rejects' | 'slow' = 'ok'): ApplicationIntegration & { got: ApplicationUpJson[] } {
  const got: ApplicationUpJson[] = [];
  return {
    name,
    got,
    publish(message) {
      if (behaviour === 'throws') throw new Error(`${name} broke`);
      got.push(message);
      if (behaviour === 'rejects') return Promise.reject(new Error(`${name} is full`));
      if (behaviour === 'slow') return new Promise((resolve) => setTimeout(resolve, 50));
      return Promise.resolve();
    },
  };
}

async function failures(name: string): Promise<number> {
  const metric = await integrationPublishFailures.get();
  return metric.values.find((v) => v.labels.integration === name)?.value ?? 0;
}

describe('ApplicationIntegrations', () => {
  it('hands every message to every integration', async () => {
    const [a, b] = [integration('a'), integration('b')];
    await new ApplicationIntegrations([a, b]).publish(up);
    expect(a.got).toEqual([up]);
    expect(b.got).toEqual([up]);
  });

  it('one integration that throws or rejects does not stop the others; the first failure is the answer, each one counted', async () => {
    const [broken, full, fine] = [integration('broken', 'throws'), integration('full', 'rejects'), integration('fine')];
    const [brokenBefore, fullBefore] = [await failures('broken'), await failures('full')];
    await expect(new ApplicationIntegrations([broken, full, fine]).publish(up)).rejects.toThrow('broken broke');
    expect(full.got).toEqual([up]);
    expect(fine.got).toEqual([up]);
    expect(await failures('broken')).toBe(brokenBefore + 1);
    expect(await failures('full')).toBe(fullBefore + 1);
  });

  it('a slow integration does not hold the others back: they get the message at once', async () => {
    const [slow, fast] = [integration('slow', 'slow'), integration('fast')];
    const published = new ApplicationIntegrations([slow, fast]).publish(up);
    expect(fast.got).toEqual([up]);
    await published;
    expect(slow.got).toEqual([up]);
  });

  it('with no integrations, a message has nowhere to go and that is fine', async () => {
    await expect(new ApplicationIntegrations([]).publish(up)).resolves.toBeUndefined();
  });
});
