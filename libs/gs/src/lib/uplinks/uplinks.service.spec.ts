import type { EventPublisher, RpcInvoker } from '@lorawan/component';
import { loadConfig } from '@lorawan/config';
import { Code, type ErrorDetails } from '@lorawan/errors';
import { gsNsInFlight } from '@lorawan/observability';
import { loraJoinRequest } from '@lorawan/testing';
import type { GatewayConnection } from '../connection/gateway-connection';
import type { UplinkMessageJson } from '../io/messages';
import { UplinksService } from './uplinks.service';

const conn = { ids: { gateway_id: 'gtw-spec', eui: 'AA555A0000000301' } } as unknown as GatewayConnection;
const events = { publish: () => undefined } as unknown as EventPublisher;
let nonce = 0;

/** One copy of a join-request never sent before (each its own frame). */
function frame(): UplinkMessageJson {
  const raw = loraJoinRequest({ devNonce: (nonce++).toString(16).padStart(4, '0') });
  return {
    raw_payload: raw.toString('base64'),
    settings: { data_rate: { lora: { spreading_factor: 7, bandwidth: 125000, coding_rate: '4/5' } }, frequency: '868100000' },
    rx_metadata: [{ gateway_ids: conn.ids, rssi: -50, snr: 7 }],
    received_at: new Date().toISOString(),
    correlation_ids: [`gs:uplink:spec-${nonce}`],
  } as unknown as UplinkMessageJson;
}

const refusal = (name: string): ErrorDetails =>
  ({ namespace: 'pkg/networkserver', name, message_format: name, code: Code.ResourceExhausted, correlation_id: 'c' }) as ErrorDetails;

/**
 * A GS whose NS double refuses every call with `name` (ResourceExhausted) until `hold()`, then
 * keeps every call unanswered: `held` counts the calls the GS makes at once.
 */
function gsWithNs(name: string) {
  const ns = { holding: false, held: 0 };
  const rpc = {
    invoke: async () => {
      if (!ns.holding) throw refusal(name);
      ns.held++;
      return new Promise(() => undefined);
    },
  } as unknown as RpcInvoker;
  const service = new UplinksService(loadConfig({ GS_NS_MAX_IN_FLIGHT: '24', GS_UPLINK_COALESCE_MS: '0' }), rpc, events);
  return { ns, service };
}

/** Frames the NS refused, one at a time, each more than the limit's decrease interval (50 ms) after the last; then how many calls it gets at once. */
async function callsAtOnceAfterRefusals(name: string): Promise<number> {
  const { ns, service } = gsWithNs(name);
  for (let i = 0; i < 6; i++) {
    await service.handle(conn, frame());
    await new Promise((resolve) => setTimeout(resolve, 60));
  }
  ns.holding = true;
  for (let i = 0; i < 40; i++) void service.handle(conn, frame());
  await new Promise((resolve) => setTimeout(resolve, 20));
  return ns.held;
}

describe('UplinksService: calls in flight to the NS', () => {
  it('narrows its calls in flight when the NS refuses frames for its own load (down to the floor of 16)', async () => {
    expect(await callsAtOnceAfterRefusals('overloaded')).toBe(16);
  });

  it('reports its calls in flight and their limit as lorawan_gs_ns_in_flight', async () => {
    await callsAtOnceAfterRefusals('overloaded');
    const values = Object.fromEntries((await gsNsInFlight.get()).values.map((v) => [v.labels.value, v.value]));
    expect(values).toEqual({ limit: 16, in_flight: 16 });
  });

  it('keeps them when the NS refuses frames because the Application Server pushes back (the NS sheds that share itself)', async () => {
    expect(await callsAtOnceAfterRefusals('application_server_overloaded')).toBe(24);
  });
});
