import type { ApplicationUpJson, NsAsHandleUplinkRequest, RpcContext } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { isStackError } from '@lorawan/errors';
import type { DownlinkResults } from '../downlinks/downlink-results.service';
import type { ApplicationUpForwarder } from '../integrations/application-up-forwarder.service';
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
    const service = new NsUplinks(
      {} as JoinAccepts,
      uplinks,
      {} as DownlinkResults,
      upstream,
      loadConfig({ AS_UPLINK_CONCURRENCY: '1', AS_UPLINK_DEADLINE_MS: '50' }),
    );
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
});
