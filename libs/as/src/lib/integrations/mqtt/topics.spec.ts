import { acceptedFilter, parseDownlinkTopic, topicMatches, upTopic } from './topics';

describe('MQTT topics (TTS layout v3)', () => {
  it('names each kind of application message as TTS does', () => {
    expect(upTopic('app', 'dev', 'uplink_message')).toBe('v3/app/devices/dev/up');
    expect(upTopic('app', 'dev', 'join_accept')).toBe('v3/app/devices/dev/join');
    expect(upTopic('app@tenant', 'dev', 'downlink_queued')).toBe('v3/app@tenant/devices/dev/down/queued');
    expect(upTopic('app', 'dev', 'downlink_queue_invalidated')).toBe('v3/app/devices/dev/down/invalidated');
    expect(upTopic('app', 'dev', 'location_solved')).toBe('v3/app/devices/dev/location/solved');
    expect(upTopic('app', 'dev', 'service_data')).toBe('v3/app/devices/dev/service/data');
    expect(upTopic('app', 'dev', 'uplink_normalized')).toBe('v3/app/devices/dev/up/normalized');
  });

  it('accepts filters within the application, rewritten as TTS AcceptedTopic does', () => {
    expect(acceptedFilter('app', '#')).toBe('v3/app/#');
    expect(acceptedFilter('app', 'v3/#')).toBe('v3/app/#');
    expect(acceptedFilter('app', 'v3/+/devices/+/up')).toBe('v3/app/devices/+/up');
    expect(acceptedFilter('app', 'v3/app/devices/dev/#')).toBe('v3/app/devices/dev/#');
    expect(acceptedFilter('app@t1', 'v3/app@t1/devices/+/join')).toBe('v3/app@t1/devices/+/join');
  });

  it('refuses filters outside the application, other layouts and malformed wildcards', () => {
    for (const filter of ['v3/other/devices/+/up', 'v3', 'v2/app/#', '+/app/devices/dev/up', 'v3/app/dev#', 'v3/app/#/up', 'v3/app+/x', 'v3/app@t2/#'])
      expect([filter, acceptedFilter('app', filter)]).toEqual([filter, undefined]);
  });

  it('matches topics with + (one level) and # (this level and below, the parent included)', () => {
    expect(topicMatches('v3/app/devices/+/up', 'v3/app/devices/dev/up')).toBe(true);
    expect(topicMatches('v3/app/devices/+/up', 'v3/app/devices/dev/up/normalized')).toBe(false);
    expect(topicMatches('v3/app/devices/+/down/+', 'v3/app/devices/dev/down/queued')).toBe(true);
    expect(topicMatches('v3/app/#', 'v3/app/devices/dev/join')).toBe(true);
    expect(topicMatches('v3/app/devices/dev/#', 'v3/app/devices/dev')).toBe(true);
    expect(topicMatches('v3/app/devices/dev/up', 'v3/app/devices/dev/up')).toBe(true);
    expect(topicMatches('v3/app/devices/dev/up', 'v3/app/devices/other/up')).toBe(false);
    expect(topicMatches('v3/app/devices/+', 'v3/app/devices/dev/up')).toBe(false);
  });

  it('reads the device and operation of a downlink topic of the application only', () => {
    expect(parseDownlinkTopic('app', 'v3/app/devices/dev-1/down/push')).toEqual({ deviceId: 'dev-1', operation: 'push' });
    expect(parseDownlinkTopic('app', 'v3/app/devices/dev-1/down/replace')).toEqual({ deviceId: 'dev-1', operation: 'replace' });
    for (const topic of ['v3/other/devices/dev/down/push', 'v3/app/devices/dev/down/queued', 'v3/app/devices/dev/up', 'v3/app/devices/dev/down/push/x'])
      expect([topic, parseDownlinkTopic('app', topic)]).toEqual([topic, undefined]);
  });
});
