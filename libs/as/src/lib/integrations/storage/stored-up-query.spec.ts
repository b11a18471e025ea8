import { decodeMessage, GetStoredApplicationUpRequest } from '@lorawan/api';
import type { StackError } from '@lorawan/errors';
import { decodeContinuation, encodeContinuation, storedUpFilter, storedUpSelection } from './stored-up-query';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const app = { application_ids: { application_id: 'app1' } };
const device = { end_device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } } };

/** The request as the AS gets it: decoded from the JSON (query parameters) by the contract's rules. */
const request = (json: Record<string, unknown>) => decodeMessage(GetStoredApplicationUpRequest, json);

function errorOf(fn: () => unknown): StackError {
  try {
    fn();
  } catch (err) {
    return err as StackError;
  }
  throw new Error('expected an error');
}

describe('storage query filters', () => {
  it('reads an application query: type, time window, FPort, order and limit', () => {
    const sel = storedUpSelection(
      request({
        ...app,
        type: 'uplink_message',
        after: '2026-11-28T10:00:00Z',
        before: '2026-11-28T11:00:00Z',
        f_port: '2',
        order: '-received_at',
        limit: '10',
      }),
      NOW,
    );
    expect(sel).toEqual({
      applicationId: 'app1',
      type: 'uplink_message',
      after: Date.parse('2026-11-28T10:00:00Z'),
      before: Date.parse('2026-11-28T11:00:00Z'),
      fPort: 2,
      descending: true,
      limit: 10,
      paths: [],
    });
  });

  it('reads a device query, ascending and unlimited by default, all types when the type is empty', () => {
    expect(storedUpSelection(request({ ...device, type: '' }), NOW)).toEqual({
      applicationId: 'app1',
      deviceId: 'dev1',
      descending: false,
      limit: 0,
      paths: [],
    });
  });

  it('turns `last` (a Go or protobuf duration) into a lower bound before now', () => {
    expect(storedUpFilter(request({ ...app, last: '1h30m' }), NOW).after).toBe(NOW - 90 * 60_000);
    expect(storedUpFilter(request({ ...app, last: '2.5s' }), NOW).after).toBe(NOW - 2500);
  });

  it.each([
    ['`last` with `after`', { ...app, last: '1h', after: '2026-11-28T10:00:00Z' }, 'last'],
    ['`last` with `before`', { ...app, last: '1h', before: '2026-11-28T10:00:00Z' }, 'last'],
    ['a zero `last`', { ...app, last: '0s' }, 'last'],
    ['both application and device identifiers', { ...app, ...device }, 'application_ids'],
    ['neither identifiers', {}, 'application_ids'],
  ])('refuses %s', (_name, json, field) => {
    const err = errorOf(() => storedUpSelection(request(json), NOW));
    expect([err.namespace, err.errorName, err.attributes.field]).toEqual(['pkg/errors', 'validation', field]);
  });

  it.each([
    ['an unknown type', { type: 'uplink' }],
    ['an unknown order', { order: 'f_port' }],
    ['an FPort out of range', { f_port: '256' }],
    ['a limit that is not a number', { limit: 'ten' }],
    ['a time with an offset', { after: '2026-11-28T10:00:00+01:00' }],
    ['a duration that is not one', { last: 'yesterday' }],
  ])('the contract refuses %s', (_name, json) => {
    const err = errorOf(() => request({ ...app, ...json }));
    expect([err.namespace, err.errorName]).toEqual(['pkg/errors', 'validation']);
  });

  it('takes ApplicationUp paths as field mask, and refuses others with field_mask_paths', () => {
    expect(storedUpSelection(request({ ...app, field_mask: 'end_device_ids,uplink_message.decoded_payload' }), NOW).paths).toEqual([
      'end_device_ids',
      'uplink_message.decoded_payload',
    ]);
    const err = errorOf(() => storedUpSelection(request({ ...app, field_mask: 'uplink_message.nope' }), NOW));
    expect([err.errorName, err.attributes.forbidden_paths]).toEqual(['field_mask_paths', ['uplink_message.nope']]);
  });

  it('round-trips a continuation token, and refuses one it did not make', () => {
    const c = { selection: { type: 'uplink_message', descending: true, limit: 5, paths: ['received_at'], after: 1 }, cursor: { receivedAt: 10, id: 3 } };
    expect(decodeContinuation(encodeContinuation(c))).toEqual(c);
    for (const bad of [
      'not-a-token',
      Buffer.from('{"cursor":{}}').toString('base64url'),
      encodeContinuation({ ...c, selection: { ...c.selection, paths: ['secret'] } }),
    ]) {
      expect(errorOf(() => decodeContinuation(bad)).attributes.field).toBe('continuation_token');
    }
  });
});
