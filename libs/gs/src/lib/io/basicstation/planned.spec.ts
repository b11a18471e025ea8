import type { PlannedDownlink } from '../../scheduling/class-a-downlink';
import { dnmsgOfPlanned } from './planned';

const SESSION = 0x2an << 48n;
const payload = Buffer.from('20AABBCCDDEEFF00112233445566778899', 'hex');
const planned = (over: Partial<PlannedDownlink>): PlannedDownlink => ({
  window: 'rx1',
  delay: 5,
  frequency: '868100000',
  data_rate: { lora: { spreading_factor: 7, bandwidth: 125000 } },
  eirp: 16.15,
  transmit_at_ms: 0,
  payload,
  txpk: {},
  emission: { starts_us: 0, duration_us: 41_216, frequency: 868_100_000, antenna_index: 0, delay_us: 0, server_us: 0 },
  ...over,
});
const context = { diid: 3, mux_time: 1764320000.5 };

describe('planned downlink → dnmsg', () => {
  it('at a timestamp (class A join-accept in RX1, 5 s): the xtime in the gateway`s session, sent as TTS does (1 s earlier, RxDelay 1, RX1)', () => {
    // The uplink at 4 000 000 123 µs; the join-accept 5 s later wraps the 32-bit timestamp.
    const uplinkXtime = SESSION | 4_000_000_123n;
    const timestamp = (4_000_000_123 + 5_000_000) % 2 ** 32;
    const dnmsg = dnmsgOfPlanned(planned({ timestamp }), { ...context, device_class: 'A', session_xtime: uplinkXtime, rctx: 0 }, 'EU_863_870');
    expect(dnmsg).toMatchObject({
      dC: 0,
      diid: 3,
      pdu: payload.toString('hex').toUpperCase(),
      xtime: uplinkXtime + 4_000_000n,
      RxDelay: 1,
      RX1DR: 5,
      RX1Freq: 868100000,
    });
    expect(dnmsg).not.toHaveProperty('RX2DR');
  });

  it('class B at the plan`s GPS time, to the microsecond', () => {
    expect(
      dnmsgOfPlanned(planned({ time: '2026-11-24T10:00:00.123456Z', frequency: '869525000' }), { ...context, device_class: 'B' }, 'EU_863_870'),
    ).toMatchObject({
      dC: 1,
      gpstime: 1_479_549_618_123_456n,
      DR: 5,
      Freq: 869525000,
    });
  });

  it('class C: at a timestamp exactly, or now', () => {
    expect(dnmsgOfPlanned(planned({ timestamp: 1000 }), { ...context, device_class: 'C', session_xtime: SESSION | 900n }, 'EU_863_870')).toMatchObject({
      dC: 2,
      xtime: SESSION | 1000n,
      DR: 5,
    });
    expect(dnmsgOfPlanned(planned({}), { ...context, device_class: 'C' }, 'EU_863_870')).toMatchObject({ dC: 2, RX2DR: 5, RX2Freq: 868100000 });
  });

  it('refuses what it cannot time', () => {
    expect(dnmsgOfPlanned(planned({ timestamp: 1000 }), { ...context, device_class: 'A' }, 'EU_863_870')).toEqual({
      error: 'no xtime from the gateway yet: its concentrator session is unknown',
    });
    expect(dnmsgOfPlanned(planned({ timestamp: 1000 }), { ...context, device_class: 'A', session_xtime: SESSION | 900n }, 'EU_863_870')).toEqual({
      error: 'the planned timestamp is within the concentrator`s first second',
    });
    expect(dnmsgOfPlanned(planned({}), { ...context, device_class: 'A' }, 'EU_863_870')).toEqual({ error: 'a class A downlink needs a time to be sent at' });
    expect(dnmsgOfPlanned(planned({ time: 'yesterday' }), { ...context, device_class: 'B' }, 'EU_863_870')).toEqual({
      error: 'the planned time yesterday is not an RFC 3339 UTC time',
    });
  });
});
