import { type DataRate } from '@lorawan/lorawan';
import { parseStationJson, stringifyStationJson } from './json';
import { parseUpstream, type TxConfirmationMessage } from './messages';
import { toDnmsg, toTxConfirmation } from './downlink';

const lora = (spreading_factor: number, khz: number): DataRate => ({ lora: { spreading_factor, bandwidth: khz * 1000 } });
const payload = Buffer.from('60DA1B012600010003', 'hex');
const XTIME = (0x2an << 48n) | 4_000_000_123n;
const common = { diid: 7, payload, mux_time: 1764320000.5 };

describe('dnmsg (tcproto "Downlink messages"; station handle_dnmsg)', () => {
  it('class A in EU868: the uplink`s xtime and rctx, RxDelay, RX1 and RX2; station`s mandatory fields', () => {
    const dnmsg = toDnmsg(
      {
        ...common,
        dev_eui: '0004A30B001C0530',
        rctx: 1,
        timing: {
          class: 'A',
          xtime: XTIME,
          rx_delay: 5,
          rx1: { data_rate: lora(7, 125), frequency: '868100000' },
          rx2: { data_rate: lora(9, 125), frequency: 869525000 },
        },
      },
      'EU_863_870',
    );
    expect(dnmsg).toEqual({
      msgtype: 'dnmsg',
      DevEui: '00-04-A3-0B-00-1C-05-30',
      dC: 0,
      diid: 7,
      pdu: '60DA1B012600010003',
      priority: 25,
      rctx: 1,
      MuxTime: 1764320000.5,
      xtime: XTIME,
      RxDelay: 5,
      RX1DR: 5,
      RX1Freq: 868100000,
      RX2DR: 3,
      RX2Freq: 869525000,
    });
    // On the wire the xtime is a plain 64-bit integer.
    expect(stringifyStationJson(dnmsg)).toContain(`"xtime":${XTIME}`);
    expect(parseStationJson(stringifyStationJson(dnmsg))).toEqual({ value: dnmsg });
  });

  it('class A in US915: RX1 on a 500 kHz downlink rate is its downlink DR index (SF10/500 = DR10, SF8/500 = DR12); RX2 only is allowed', () => {
    const dnmsg = toDnmsg(
      {
        ...common,
        timing: {
          class: 'A',
          xtime: XTIME,
          rx_delay: 1,
          rx1: { data_rate: lora(10, 500), frequency: 923300000 },
          rx2: { data_rate: lora(8, 500), frequency: 923300000 },
        },
      },
      'US_902_928',
    );
    expect(dnmsg).toMatchObject({ RX1DR: 10, RX2DR: 12, DevEui: '00-00-00-00-00-00-00-01', rctx: 0 });
    const rx2Only = toDnmsg(
      { ...common, timing: { class: 'A', xtime: XTIME, rx_delay: 1, rx2: { data_rate: lora(12, 500), frequency: 923300000 } } },
      'US_902_928',
    );
    expect(rx2Only).toMatchObject({ RX2DR: 8, RX2Freq: 923300000 });
    expect(rx2Only).not.toHaveProperty('RX1DR');
  });

  it('class B at a GPS time (ping slot)', () => {
    expect(
      toDnmsg({ ...common, timing: { class: 'B', gpstime: 1_479_549_618_123_000n, channel: { data_rate: lora(9, 125), frequency: 869525000 } } }, 'EU_863_870'),
    ).toEqual({
      msgtype: 'dnmsg',
      DevEui: '00-00-00-00-00-00-00-01',
      dC: 1,
      diid: 7,
      pdu: '60DA1B012600010003',
      priority: 25,
      rctx: 0,
      MuxTime: 1764320000.5,
      DR: 3,
      Freq: 869525000,
      gpstime: 1_479_549_618_123_000n,
    });
  });

  it('class C: at an xtime exactly (DR/Freq, no RxDelay), or as soon as possible (RX2 fields, no time)', () => {
    const at = toDnmsg({ ...common, timing: { class: 'C', xtime: XTIME, channel: { data_rate: lora(12, 125), frequency: 869525000 } } }, 'EU_863_870');
    expect(at).toMatchObject({ dC: 2, DR: 0, Freq: 869525000, xtime: XTIME });
    expect(at).not.toHaveProperty('RxDelay');
    const now = toDnmsg({ ...common, priority: 200, timing: { class: 'C', channel: { data_rate: lora(12, 125), frequency: 869525000 } } }, 'EU_863_870');
    expect(now).toMatchObject({ dC: 2, RX2DR: 0, RX2Freq: 869525000, RxDelay: 1, priority: 200 });
    expect(now).not.toHaveProperty('xtime');
    expect(now).not.toHaveProperty('RX1DR');
  });

  it.each<[object, string]>([
    [{ payload: Buffer.alloc(0) }, 'a downlink PHYPayload is 1 to 255 bytes'],
    [{ payload: Buffer.alloc(256) }, 'a downlink PHYPayload is 1 to 255 bytes'],
    [{ diid: -1 }, '`diid` must be a non-negative integer'],
    [{ priority: 256 }, 'priority must be an integer in [0, 255]'],
    [{ rctx: 1.5 }, '`rctx` must be an integer in [0, 255]'],
    [{ dev_eui: '0004A30B001C053' }, 'a DevEUI is 16 hex digits'],
    [{ timing: { class: 'A', xtime: XTIME, rx_delay: 1 } }, 'a class A downlink needs RX1 or RX2'],
    [{ timing: { class: 'A', xtime: XTIME, rx_delay: 0, rx2: { data_rate: lora(9, 125), frequency: 869525000 } } }, 'RxDelay must be 1 to 15 s'],
    [{ timing: { class: 'A', xtime: 0n, rx_delay: 1, rx2: { data_rate: lora(9, 125), frequency: 869525000 } } }, '`xtime` must be a positive 63-bit integer'],
    [{ timing: { class: 'B', gpstime: -5n, channel: { data_rate: lora(9, 125), frequency: 869525000 } } }, '`gpstime` must be a positive 63-bit integer'],
    [
      { timing: { class: 'C', channel: { data_rate: lora(9, 500), frequency: 869525000 } } },
      'the data rate {"lora":{"spreading_factor":9,"bandwidth":500000}} is not one of EU_863_870',
    ],
    [{ timing: { class: 'C', channel: { data_rate: lora(9, 125), frequency: '869.525' } } }, 'a downlink frequency is a positive integer (Hz)'],
  ])('refuses (%#): %p', (over, error) => {
    const request = { ...common, timing: { class: 'C' as const, channel: { data_rate: lora(9, 125), frequency: 869525000 } }, ...over };
    expect(toDnmsg(request as Parameters<typeof toDnmsg>[0], 'EU_863_870')).toEqual({ error });
  });

  it('dntxed → a successful TX acknowledgment of that diid', () => {
    const msg = parseUpstream(
      '{"msgtype":"dntxed","seqno":7,"diid":7,"DevEui":"00-00-00-00-00-00-00-01","rctx":0,"xtime":83879543184232277,"txtime":12.5,"gpstime":0}',
    );
    expect(toTxConfirmation(msg as TxConfirmationMessage)).toEqual({ diid: 7, result: 'SUCCESS', xtime: 83879543184232277n });
  });
});
