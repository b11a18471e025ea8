import type { ApplicationUpJson, NsAsHandleUplinkRequest, RpcContext } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { isStackError } from '@lorawan/errors';
import type { DownlinkResults } from '../downlinks/downlink-results.service';
import type { ApplicationUpForwarder } from '../integrations/application-up-forwarder.service';
import { WebhookLag } from '../integrations/webhooks/delivery/webhook-lag';
import type { DataUplinks } from './data-uplink.service';
import type { JoinAccepts } from './join-accept.service';
import { NsUplinks } from './ns-uplinks.service';

const ctx: RpcContext = { correlation_ids: ['rpc:spec'] } as RpcContext;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function uplinkRequest(n: number): NsAsHandleUplinkRequest {
  return {
    application_ups: [
      {
        end_device_ids: { device_id: `dev-${n}`, application_ids: { application_id: 'app' }, dev_addr: '26000001' },
        uplink_message: { session_key_id: 'AQID', f_port: 1, frm_payload: 'AA==' },
      },
    ],
  } as unknown as NsAsHandleUplinkRequest;
}

describe('NsUplinks admission', () => {
  it('handles at most AS_UPLINK_CONCURRENCY messages at once and refuses at once, before any work, one that cannot start within AS_UPLINK_DEADLINE_MS; its drop event is published', async () => {
    const handled: string[] = [];
    const dropped: Array<{ kind: string; ids: ApplicationUpJson['end_device_ids'] }> = [];
    const uplinks = {
      handle: async (up: { end_device_ids: { device_id: string } }) => {
        handled.push(up.end_device_ids.device_id);
        await sleep(30);
      },
    } as unknown as DataUplinks;
    const upstream = {
      droppedKind: (kind: string, ids: ApplicationUpJson['end_device_ids']) => dropped.push({ kind, ids }),
    } as unknown as ApplicationUpForwarder;
    const config = loadConfig({ AS_UPLINK_CONCURRENCY: '1', AS_UPLINK_DEADLINE_MS: '50' });
    const service = new NsUplinks({} as JoinAccepts, uplinks, {} as DownlinkResults, upstream, config, new WebhookLag(config, () => 1));
    // The pace: 30 ms a message.
    await service.handle(uplinkRequest(0), ctx);
    const answers = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => service.handle(uplinkRequest(i + 1), ctx)));
    const refused = answers.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
    expect(refused.length).toBeGreaterThanOrEqual(6);
    expect(10 - refused.length).toBe(handled.length - 1);
    for (const { reason } of refused)
      expect(isStackError(reason) && reason.toDetails()).toMatchObject({ namespace: 'pkg/applicationserver', name: 'overloaded', code: 8 });
    // Events at a bounded rate: here every refusal (fewer than the rate).
    expect(dropped).toHaveLength(refused.length);
    expect(dropped[0]).toMatchObject({ kind: 'uplink_message', ids: { application_ids: { application_id: 'app' } } });
  });

  it('refuses data uplinks while the webhooks are behind (a share between AS_WEBHOOK_LAG_SHED_MS and twice it, all beyond), never join-accepts, and none once they caught up', async () => {
    const handled: string[] = [];
    const dropped: string[] = [];
    const uplinks = {
      handle: async (up: { end_device_ids: { device_id: string } }) => void handled.push(up.end_device_ids.device_id),
    } as unknown as DataUplinks;
    const joins = {
      handle: async (up: { end_device_ids: { device_id: string } }) => void handled.push(`join:${up.end_device_ids.device_id}`),
    } as unknown as JoinAccepts;
    const upstream = { droppedKind: (kind: string) => dropped.push(kind) } as unknown as ApplicationUpForwarder;
    const config = loadConfig({ AS_WEBHOOK_LAG_SHED_MS: '100' });
    const lag = new WebhookLag(config, () => 1);
    const service = new NsUplinks(joins, uplinks, {} as DownlinkResults, upstream, config, lag);
    const attempt = (n: number) =>
      service.handle(uplinkRequest(n), ctx).then(
        () => 'ok',
        (err: unknown) => (isStackError(err) ? err.toDetails().name : 'other'),
      );

    lag.record('app/wh', 250);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => attempt(i)));
    expect(answers).toEqual(Array(20).fill('overloaded'));
    expect(handled).toEqual([]);
    expect(dropped.every((kind) => kind === 'uplink_message')).toBe(true);
    const joinAccept = {
      application_ups: [
        { end_device_ids: { device_id: 'joiner', application_ids: { application_id: 'app' }, dev_addr: '26000002' }, join_accept: { session_key_id: 'AQID' } },
      ],
    } as unknown as NsAsHandleUplinkRequest;
    await service.handle(joinAccept, ctx);
    expect(handled).toEqual(['join:joiner']);

    // Half a second later the 250 ms no longer count; 150 ms against 100: about half refused.
    await sleep(550);
    lag.record('app/wh', 150);
    const halfway = await Promise.all(Array.from({ length: 400 }, (_, i) => attempt(100 + i)));
    const refusedShare = halfway.filter((a) => a === 'overloaded').length / halfway.length;
    expect(refusedShare).toBeGreaterThan(0.3);
    expect(refusedShare).toBeLessThan(0.7);
    expect(halfway.filter((a) => a !== 'overloaded').every((a) => a === 'ok')).toBe(true);
  });

  it('refuses nothing for the webhooks when AS_WEBHOOK_LAG_SHED_MS is 0', async () => {
    const config = loadConfig({ AS_WEBHOOK_LAG_SHED_MS: '0' });
    const lag = new WebhookLag(config, () => 1);
    lag.record('app/wh', 60_000);
    const uplinks = { handle: async () => undefined } as unknown as DataUplinks;
    const service = new NsUplinks({} as JoinAccepts, uplinks, {} as DownlinkResults, {} as ApplicationUpForwarder, config, lag);
    await expect(service.handle(uplinkRequest(1), ctx)).resolves.toEqual({});
  });
});
