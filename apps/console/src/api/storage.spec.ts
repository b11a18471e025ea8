import { ApiError } from './client';
import { parseStoredUplinks } from './storage';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('parseStoredUplinks', () => {
  it('reads one stored uplink per {"result": …} line: received_at, FPort, FCnt, payloads; skips other kinds', () => {
    const lines = [
      { result: { received_at: '2026-11-28T10:00:02Z', uplink_message: { f_port: 2, f_cnt: 7, frm_payload: 'AQI=', decoded_payload: { t: 21.5 } } } },
      { result: { received_at: '2026-11-28T10:00:01Z', join_accept: { session_key_id: 'AA==' } } },
      { result: { received_at: '2026-11-28T10:00:00Z', uplink_message: { frm_payload: 'AA==' } } },
    ];
    expect(parseStoredUplinks(bytes(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'))).toEqual([
      { received_at: '2026-11-28T10:00:02Z', f_port: 2, f_cnt: 7, frm_payload: 'AQI=', decoded_payload: { t: 21.5 } },
      { received_at: '2026-11-28T10:00:00Z', f_port: undefined, f_cnt: undefined, frm_payload: 'AA==', decoded_payload: undefined },
    ]);
  });

  it('answers nothing for an empty stream (no stored uplinks, or storage not enabled)', () => {
    expect(parseStoredUplinks(bytes(''))).toEqual([]);
  });

  it('throws the error a stream ends with as the API error', () => {
    const text = '{"result":{"uplink_message":{"f_cnt":1}}}\n{"error":{"code":14,"message":"unavailable","details":[]}}\n';
    expect(() => parseStoredUplinks(bytes(text))).toThrow(ApiError);
    expect(() => parseStoredUplinks(bytes(text))).toThrow('unavailable');
  });
});
