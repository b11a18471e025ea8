import { filterByFieldMask } from './field-mask-filter';

const up = {
  end_device_ids: { device_id: 'd1', application_ids: { application_id: 'a1' }, dev_eui: '0011223344556677' },
  correlation_ids: ['as:up:1'],
  received_at: '2026-11-22T08:00:00Z',
  uplink_message: { f_port: 1, f_cnt: 7, frm_payload: 'AQI=', decoded_payload: { t: 27.2, nested: { a: 1 } }, rx_metadata: [{ rssi: -42 }] },
};

describe('filterByFieldMask', () => {
  it('keeps the message as is without paths', () => {
    expect(filterByFieldMask(up, undefined)).toBe(up);
    expect(filterByFieldMask(up, [])).toBe(up);
  });

  it('keeps each path with its whole sub-tree, dropping the `up.` oneof prefix', () => {
    expect(filterByFieldMask(up, ['end_device_ids', 'up.uplink_message.decoded_payload'])).toEqual({
      end_device_ids: up.end_device_ids,
      uplink_message: { decoded_payload: up.uplink_message.decoded_payload },
    });
    expect(filterByFieldMask(up, ['uplink_message.decoded_payload.nested', 'uplink_message.f_cnt'])).toEqual({
      uplink_message: { f_cnt: 7, decoded_payload: { nested: { a: 1 } } },
    });
  });

  it('a parent path wins over its children, whatever the order', () => {
    expect(filterByFieldMask(up, ['uplink_message.f_port', 'uplink_message'])).toEqual({ uplink_message: up.uplink_message });
    expect(filterByFieldMask(up, ['uplink_message', 'uplink_message.f_port'])).toEqual({ uplink_message: up.uplink_message });
  });

  it('skips absent fields and keeps arrays whole', () => {
    expect(filterByFieldMask(up, ['join_accept', 'end_device_ids.join_eui', 'uplink_message.rx_metadata'])).toEqual({
      end_device_ids: {},
      uplink_message: { rx_metadata: [{ rssi: -42 }] },
    });
    expect(filterByFieldMask(up, ['uplink_message.rx_metadata.rssi'])).toEqual({ uplink_message: {} });
  });

  it('`up` is the whole oneof: the message kind the message has', () => {
    expect(filterByFieldMask(up, ['up', 'end_device_ids.device_id'])).toEqual({ end_device_ids: { device_id: 'd1' }, uplink_message: up.uplink_message });
    const joinAccept = { end_device_ids: up.end_device_ids, join_accept: { session_key_id: 'AQI=' } };
    expect(filterByFieldMask(joinAccept, ['up'])).toEqual({ join_accept: joinAccept.join_accept });
  });
});
