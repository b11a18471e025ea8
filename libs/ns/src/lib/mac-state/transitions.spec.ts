import type { MACState, MACStateJoinAccept, Session } from '@lorawan/api';
import {
  onDeviceModeInd,
  onDownlinkScheduled,
  onJoinAcceptNotScheduled,
  onJoinAcceptQueued,
  onJoinAcceptScheduled,
  onRekeyInd,
  onUplink,
  onUplinkForPendingJoin,
} from './transitions';

/** Freezes deeply, so any mutation of an input throws. */
function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(frozen);
    Object.freeze(value);
  }
  return value;
}

const params = { channels: [{ uplink_frequency: '868100000', downlink_frequency: '868100000', enable_uplink: true }] };
const state = (fields: Partial<MACState> = {}): MACState => frozen({ current_parameters: params, desired_parameters: params, ...fields });
const joinAccept: MACStateJoinAccept = {
  payload: 'IDI/6Avx8jQ1OXEsvzhPzEs=',
  request: { downlink_settings: { rx1_dr_offset: 0, rx2_dr: 3 }, rx_delay: 5 },
  keys: { session_key_id: 'AZKvbmxibtmpUIwzFEL6Og==' },
};
const session = (devAddr: string): Session => ({ dev_addr: devAddr, keys: { session_key_id: 'AQ==' } });

describe('device_class (seed "States and transitions")', () => {
  it.each([
    ['CLASS_A', true, 'CLASS_B'],
    ['CLASS_A', false, 'CLASS_A'],
    [undefined, true, 'CLASS_B'],
    ['CLASS_B', true, 'CLASS_B'],
    ['CLASS_B', false, 'CLASS_B'],
    ['CLASS_C', true, 'CLASS_C'],
    ['CLASS_C', false, 'CLASS_C'],
  ])('%s + uplink with ClassB bit %s → %s', (from, classB, to) => {
    expect(onUplink(state(from === undefined ? {} : { device_class: from }), { classB }).device_class ?? 'CLASS_A').toBe(to);
  });

  it.each([
    ['CLASS_A', 'CLASS_A'],
    ['CLASS_A', 'CLASS_C'],
    ['CLASS_B', 'CLASS_A'],
    ['CLASS_B', 'CLASS_C'],
    ['CLASS_C', 'CLASS_A'],
    ['CLASS_C', 'CLASS_C'],
  ])('%s + DeviceModeInd(%s) → the class named', (from, named) => {
    expect(onDeviceModeInd(state({ device_class: from }), named).device_class).toBe(named);
  });

  it('refuses a DeviceModeInd that names another class', () => {
    expect(() => onDeviceModeInd(state(), 'CLASS_B')).toThrow('DeviceModeInd names CLASS_B; only CLASS_A and CLASS_C are valid');
  });
});

describe('set/clear rules (seed MACState table)', () => {
  it('rx_windows_available: true on every uplink, false on every downlink scheduled', () => {
    expect(onUplink(state({ rx_windows_available: false }), { classB: false }).rx_windows_available).toBe(true);
    expect(onUplink(state({ rx_windows_available: true }), { classB: false }).rx_windows_available).toBe(true);
    expect(onDownlinkScheduled(state({ rx_windows_available: true })).rx_windows_available).toBe(false);
    expect(onJoinAcceptScheduled(state({ rx_windows_available: true, queued_join_accept: joinAccept })).rx_windows_available).toBe(false);
  });

  it('a join-accept that cannot be scheduled is dropped with its keys; the RX windows are gone; the rest stays', () => {
    const input = state({ rx_windows_available: true, queued_join_accept: joinAccept, device_class: 'CLASS_A' });
    const lost = onJoinAcceptNotScheduled(input);
    expect(lost).not.toHaveProperty('queued_join_accept');
    expect(lost).toMatchObject({ rx_windows_available: false, device_class: 'CLASS_A' });
    expect(input.queued_join_accept).toBe(joinAccept);
  });

  it('queued_join_accept: set when the join-accept arrives, removed when a downlink is scheduled', () => {
    const queued = onJoinAcceptQueued(state(), joinAccept);
    expect(queued.queued_join_accept).toBe(joinAccept);
    expect(onDownlinkScheduled(queued)).not.toHaveProperty('queued_join_accept');
    expect(onJoinAcceptScheduled(queued)).not.toHaveProperty('queued_join_accept');
  });

  it('pending_join_request: set when the join-accept is scheduled, removed on an uplink of the new session', () => {
    const scheduled = onJoinAcceptScheduled(state({ queued_join_accept: joinAccept }));
    expect(scheduled.pending_join_request).toBe(joinAccept.request);
    expect(onUplinkForPendingJoin(scheduled)).not.toHaveProperty('pending_join_request');
    expect(() => onJoinAcceptScheduled(state())).toThrow('no queued join-accept to schedule');
  });

  it('pending_session: held until RekeyInd, which makes the pendings current', () => {
    const pendingMacState = state({ lorawan_version: 'MAC_V1_1', pending_join_request: joinAccept.request });
    const device = frozen({
      ids: { device_id: 'dev1' },
      session: session('01020304'),
      mac_state: state({ lorawan_version: 'MAC_V1_0_3' }),
      pending_session: session('05060708'),
      pending_mac_state: pendingMacState,
    });
    const rekeyed = onRekeyInd(device);
    expect(rekeyed).toEqual({ ids: { device_id: 'dev1' }, session: session('05060708'), mac_state: state({ lorawan_version: 'MAC_V1_1' }) });
    expect(rekeyed).not.toHaveProperty('pending_session');
    expect(rekeyed).not.toHaveProperty('pending_mac_state');
  });

  it('RekeyInd without pendings keeps the current session and MAC state', () => {
    const device = frozen({ session: session('01020304'), mac_state: state({ device_class: 'CLASS_C' }) });
    expect(onRekeyInd(device)).toEqual(device);
  });
});

describe('immutability', () => {
  it('never changes its input (inputs are deeply frozen) and returns new objects', () => {
    const input = state({ device_class: 'CLASS_A', rx_windows_available: false, queued_join_accept: joinAccept, pending_join_request: joinAccept.request });
    const snapshot = JSON.parse(JSON.stringify(input));
    const results = [
      onUplink(input, { classB: true }),
      onDeviceModeInd(input, 'CLASS_C'),
      onDownlinkScheduled(input),
      onJoinAcceptQueued(input, joinAccept),
      onJoinAcceptScheduled(input),
      onUplinkForPendingJoin(input),
    ];
    for (const result of results) expect(result).not.toBe(input);
    expect(input).toEqual(snapshot);
  });
});
