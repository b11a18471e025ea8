import { Controller, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type RpcContext, rpcPattern, RPCS, type SetEndDeviceRequest } from '@lorawan/api';
import { RpcCallContext, RpcRequest, startComponent } from '@lorawan/component';
import { loadConfig } from '@lorawan/config';
import { createRootLogger, nestLogger } from '@lorawan/observability';
import { InProcessBroker, inProcessMessaging } from '@lorawan/transport';
import { round } from './load';
import { machineBusyMs } from './procs';
import { untilIdle } from './radio';

@Controller()
class EchoController {
  @MessagePattern(rpcPattern('NsEndDeviceRegistry.Set'))
  set(@RpcRequest() req: SetEndDeviceRequest, @RpcCallContext() _ctx: RpcContext) {
    return req.end_device;
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

const ids = { device_id: 'reg-000123', application_ids: { application_id: 'bench-register-app' }, dev_eui: '70B3D57E01000123', join_eui: '70B3D57ED0000000' };
const body = {
  end_device: {
    ids,
    frequency_plan_id: 'EU_863_870_TTN',
    lorawan_version: 'MAC_V1_0_3',
    lorawan_phy_version: 'PHY_V1_0_3_REV_A',
    mac_settings: { rx1_delay: 5 },
    supports_join: true,
  },
  field_mask: { paths: ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join', 'mac_settings.rx1_delay'] },
};
const ctx: RpcContext = {
  request_id: '01JDX7N2ZK8Q4W5E6R7T8Y9U0I',
  correlation_ids: [],
  caller: { kind: 'admin-key', id: 'admin', is_admin: true, key_rights: [], universal: true, rights: [] },
};

const CALLS = Number(process.env.BENCH_RPC_CALLS ?? 50000);
const CONCURRENCY = Number(process.env.BENCH_RPC_CONCURRENCY ?? 8);
/** The machine counts as quiet below this many busy cores over a second. */
const QUIET_CORES = 0.15;
const QUIET_MAX_S = 30;

/**
 * `rpc_overhead`: the CPU one RPC costs in the component runtime itself, without a database or
 * HTTP: an in-process client's call() → broker → dispatcher → Nest's pipeline (rights guard,
 * decode pipe with validation, a handler that answers the decoded device, error filter) → reply,
 * JSON both ways, `CONCURRENCY` calls in flight. Runs in the bench process once the machine is
 * quiet (`untilIdle` of the machine's busy time); three rounds of `CALLS` calls after a warm-up, CPU µs per call of each.
 */
export async function rpcOverheadPhase() {
  const broker = new InProcessBroker();
  const messaging = inProcessMessaging(broker, { rpcTimeoutMs: 5000, shutdownGraceMs: 1000 });
  const config = loadConfig({ LOG_LEVEL: 'warn' });
  const root = createRootLogger({ level: 'warn', format: 'json' }, { component: 'ns' });
  const running = await startComponent(EchoModule, { component: 'ns', config, messaging, logger: nestLogger(root) });
  const client = messaging.client();
  const subject = RPCS['NsEndDeviceRegistry.Set'].subject;
  const run = async (n: number) => {
    let next = 0;
    const worker = async () => {
      while (next++ < n) await client.call(subject, { ctx, body });
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };
  try {
    // After a stack stopped, its databases and streams are still being dropped and MariaDB purges: a
    // process's CPU per call is higher while another core is busy (shared caches, the hypervisor).
    const quietWaitS = (await untilIdle(machineBusyMs, QUIET_MAX_S * 1000, QUIET_CORES)).s;
    await run(CALLS / 5);
    const rounds: number[] = [];
    const busyBefore = machineBusyMs();
    const wallBefore = performance.now();
    for (let r = 0; r < 3; r++) {
      const cpu = process.cpuUsage();
      await run(CALLS);
      const used = process.cpuUsage(cpu);
      rounds.push(round((used.user + used.system) / CALLS, 2));
    }
    // What the machine did meanwhile besides this process (close to 0 when the figure is clean).
    const otherCores = round((machineBusyMs() - busyBefore) / (performance.now() - wallBefore) - 1, 2);
    return {
      rpc: 'NsEndDeviceRegistry.Set',
      calls: CALLS,
      concurrency: CONCURRENCY,
      cpu_us_per_call: Math.min(...rounds),
      rounds_cpu_us_per_call: rounds,
      quiet_wait_s: quietWaitS,
      other_cores: Math.max(0, otherCores),
    };
  } finally {
    await running.close();
  }
}
