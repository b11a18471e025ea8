import { defineEvent, IS_EVENTS, Right } from '@lorawan/api';
import { app, dev, filterFor, gtw, makeEvent, prepare, rightsOn } from './fixtures.conformance';
import { PreparedEvent, timestampMicros } from './prepared-event';

/** A device event without WithPropagateToParent (as TTS `as.up.data.receive`): reaches device subscribers only. */
const LOCAL = defineEvent('test.device.local', 'device-only event', { visibility: [Right.RIGHT_APPLICATION_TRAFFIC_READ] });
const DEVICE_UPDATE = IS_EVENTS.endDevice.update;
const APP_UPDATE = IS_EVENTS.application.update;
const GATEWAY_UPDATE = IS_EVENTS.gateway.update;

describe('StreamFilter (what a stream receives)', () => {
  describe('identifiers', () => {
    it('matches an event carrying a requested identifier exactly', () => {
      expect(filterFor([app('app1')]).matches(prepare(makeEvent(APP_UPDATE, app('app1'))))).toBe(true);
      expect(filterFor([dev('app1', 'dev1')]).matches(prepare(makeEvent(DEVICE_UPDATE, dev('app1', 'dev1'))))).toBe(true);
      expect(filterFor([gtw('gw1')]).matches(prepare(makeEvent(GATEWAY_UPDATE, gtw('gw1'))))).toBe(true);
    });

    it('does not match other entities, nor the same ID of another kind or application', () => {
      expect(filterFor([app('app1')]).matches(prepare(makeEvent(APP_UPDATE, app('app2'))))).toBe(false);
      expect(filterFor([dev('app1', 'dev1')]).matches(prepare(makeEvent(DEVICE_UPDATE, dev('app1', 'dev2'))))).toBe(false);
      expect(filterFor([dev('app1', 'dev1')]).matches(prepare(makeEvent(DEVICE_UPDATE, dev('app2', 'dev1'))))).toBe(false);
      expect(filterFor([gtw('app1')]).matches(prepare(makeEvent(APP_UPDATE, app('app1'))))).toBe(false);
    });

    it('ignores EUIs and other extra device identifiers (the key is application and device ID)', () => {
      const withEuis = {
        device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' }, dev_eui: '70B3D57ED005B59E', join_eui: '0000000000000000' },
      };
      expect(filterFor([dev('app1', 'dev1')]).matches(prepare(makeEvent(DEVICE_UPDATE, withEuis)))).toBe(true);
    });

    it('propagates device events defined with propagateToParent to subscribers of the application', () => {
      expect(filterFor([app('app1')]).matches(prepare(makeEvent(DEVICE_UPDATE, dev('app1', 'dev1'))))).toBe(true);
      expect(filterFor([app('app2')]).matches(prepare(makeEvent(DEVICE_UPDATE, dev('app1', 'dev1'))))).toBe(false);
    });

    it('does not propagate other device events: only subscribers of the device get them', () => {
      expect(filterFor([app('app1')]).matches(prepare(makeEvent(LOCAL, dev('app1', 'dev1'))))).toBe(false);
      expect(filterFor([dev('app1', 'dev1')]).matches(prepare(makeEvent(LOCAL, dev('app1', 'dev1'))))).toBe(true);
    });

    it('does not send application events to subscribers of one of its devices', () => {
      expect(filterFor([dev('app1', 'dev1')]).matches(prepare(makeEvent(APP_UPDATE, app('app1'))))).toBe(false);
    });

    it('matches when any of several identifiers of the event, or of the request, match', () => {
      const event = prepare(makeEvent(DEVICE_UPDATE, [gtw('gw1'), dev('app1', 'dev1')]));
      expect(filterFor([app('app1')]).matches(event)).toBe(true);
      expect(filterFor([app('app9'), gtw('gw1')]).matchesIdentifiers(event)).toBe(true);
      expect(filterFor([app('app9'), gtw('gw9')]).matchesIdentifiers(event)).toBe(false);
      // …and it is visible through the rights on any of its identifiers' entities.
      expect(filterFor([gtw('gw1')]).matches(event)).toBe(false);
      expect(
        filterFor([gtw('gw1')], { rights: rightsOn({ 'gateway:gw1': ['RIGHT_GATEWAY_ALL'], 'application:app1': ['RIGHT_APPLICATION_DEVICES_READ'] }) }).matches(
          event,
        ),
      ).toBe(true);
    });
  });

  describe('names', () => {
    it('passes only the resolved names when a names filter is given', () => {
      const f = filterFor([app('app1')], { names: ['end_device.create', 'end_device.update'] });
      expect(f.matches(prepare(makeEvent(DEVICE_UPDATE, dev('app1', 'dev1'))))).toBe(true);
      expect(f.matches(prepare(makeEvent(APP_UPDATE, app('app1'))))).toBe(false);
    });
  });

  describe('visibility (TTS EventIsVisible)', () => {
    const deviceEvent = prepare(makeEvent(DEVICE_UPDATE, dev('app1', 'dev1')));

    it('shows an event when the caller holds one of its rights on the entity (devices: their application)', () => {
      expect(filterFor([app('app1')], { rights: rightsOn({ 'application:app1': ['RIGHT_APPLICATION_DEVICES_READ'] }) }).matches(deviceEvent)).toBe(true);
      expect(filterFor([dev('app1', 'dev1')], { rights: rightsOn({ 'application:app1': ['RIGHT_APPLICATION_DEVICES_READ'] }) }).matches(deviceEvent)).toBe(
        true,
      );
    });

    it('counts implied rights (RIGHT_APPLICATION_ALL, RIGHT_ALL)', () => {
      expect(filterFor([app('app1')], { rights: rightsOn({ 'application:app1': ['RIGHT_APPLICATION_ALL'] }) }).matches(deviceEvent)).toBe(true);
      expect(filterFor([app('app1')], { rights: rightsOn({ 'application:app1': ['RIGHT_ALL'] }) }).matches(deviceEvent)).toBe(true);
    });

    it('hides it from a caller with other rights only (RIGHT_APPLICATION_INFO sees no end_device.*)', () => {
      const infoOnly = filterFor([app('app1')], { rights: rightsOn({ 'application:app1': ['RIGHT_APPLICATION_INFO'] }) });
      expect(infoOnly.matches(deviceEvent)).toBe(false);
      expect(infoOnly.matches(prepare(makeEvent(APP_UPDATE, app('app1'))))).toBe(true);
      expect(infoOnly.matches(prepare(makeEvent(LOCAL, dev('app1', 'dev1'))))).toBe(false);
    });

    it('uses the rights on the event’s own entity, not on another requested one', () => {
      const f = filterFor([app('app1'), app('app2')], {
        rights: rightsOn({ 'application:app1': ['RIGHT_APPLICATION_INFO'], 'application:app2': ['RIGHT_APPLICATION_ALL'] }),
      });
      expect(f.matches(deviceEvent)).toBe(false);
      expect(f.matches(prepare(makeEvent(DEVICE_UPDATE, dev('app2', 'dev1'))))).toBe(true);
    });

    it('shows events without visibility to everyone, and everything to a universal caller', () => {
      const none = filterFor([app('app1')], { rights: rightsOn({ 'application:app1': ['RIGHT_APPLICATION_INFO'] }) });
      expect(none.matches(prepare(makeEvent(DEVICE_UPDATE, dev('app1', 'dev1'), { visibility: [] })))).toBe(true);
      expect(filterFor([app('app1')], { rights: 'universal' }).matches(deviceEvent)).toBe(true);
    });

    it('defaults an event that carries no visibility to its definition’s, and an undefined one to RIGHT_ALL (any right)', () => {
      const infoOnly = filterFor([app('app1')], { rights: rightsOn({ 'application:app1': ['RIGHT_APPLICATION_INFO'] }) });
      const { visibility: _v, ...bare } = makeEvent(DEVICE_UPDATE, dev('app1', 'dev1'));
      expect(infoOnly.matches(prepare(bare as never))).toBe(false);
      const adHoc = { ...bare, name: 'not.defined' };
      expect(infoOnly.matches(prepare(adHoc as never))).toBe(false); // not propagated: undefined events do not propagate
      expect(filterFor([dev('app1', 'dev1')], { rights: rightsOn({ 'application:app1': ['RIGHT_APPLICATION_INFO'] }) }).matches(prepare(adHoc as never))).toBe(
        true,
      );
    });
  });
});

describe('PreparedEvent', () => {
  it('ignores what is not an event, and identifiers that are not well-formed', () => {
    expect(PreparedEvent.fromBytes(Buffer.from('not json'))).toBeUndefined();
    expect(PreparedEvent.fromBytes(Buffer.from('{"name":"x"}'))).toBeUndefined();
    const broken = prepare({
      ...makeEvent(DEVICE_UPDATE, dev('app1', 'dev1')),
      identifiers: [{ device_ids: { device_id: 'dev1' } } as never, app('undefined')],
    });
    expect(broken.lookupKeys).toEqual(['application:undefined']);
  });

  it('builds the {event} message from the bytes as published', () => {
    const raw = Buffer.from(JSON.stringify(makeEvent(APP_UPDATE, app('app1'))));
    const event = PreparedEvent.fromBytes(raw);
    expect(JSON.parse(Buffer.from(event?.message ?? []).toString())).toEqual({ event: JSON.parse(raw.toString()) });
    expect(event?.message).toBe(event?.message);
  });

  it('reads times with 0 to 9 fractional digits to the microsecond', () => {
    expect(timestampMicros('2024-05-01T10:00:00Z')).toBe(Date.UTC(2024, 4, 1, 10) * 1000);
    expect(timestampMicros('2024-05-01T10:00:00.123456789Z')).toBe(Date.UTC(2024, 4, 1, 10) * 1000 + 123456);
    expect(timestampMicros('2024-05-01T10:00:00.5Z')).toBe(Date.UTC(2024, 4, 1, 10) * 1000 + 500000);
    expect(timestampMicros('yesterday')).toBeUndefined();
  });
});
