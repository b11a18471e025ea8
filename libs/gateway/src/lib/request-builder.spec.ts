import { buildRequest, compileBinding } from './request-builder';
import { PlainStatus } from './gateway-errors';
import { type HttpBinding, MAX_JSON_DEPTH, UpdateEndDeviceRequest } from '@lorawan/api';

const get: HttpBinding = { verb: 'GET', path: '/applications/{end_device_ids.application_ids.application_id}/devices/{end_device_ids.device_id}' };
const put: HttpBinding = { verb: 'PUT', path: '/applications/{end_device.ids.application_ids.application_id}/devices/{end_device.ids.device_id}', body: '*' };

describe('grpc-gateway request semantics', () => {
  it('compiles path variables to Fastify params and a matcher', () => {
    const c = compileBinding(get);
    expect(c.fastifyPath).toBe('/api/v3/applications/:p0/devices/:p1');
    expect(c.variables).toEqual(['end_device_ids.application_ids.application_id', 'end_device_ids.device_id']);
    expect(c.pattern.test('/api/v3/applications/a/devices/b')).toBe(true);
    expect(c.pattern.test('/api/v3/applications/a/devices')).toBe(false);
  });

  it('GET: query parameters fill fields by dotted name; path variables are set', () => {
    const c = compileBinding(get);
    const req = buildRequest(get, c, { p0: 'app1', p1: 'dev1' }, { field_mask: 'name,description' }, undefined);
    expect(req).toEqual({ end_device_ids: { application_ids: { application_id: 'app1' }, device_id: 'dev1' }, field_mask: 'name,description' });
    const repeated = buildRequest(get, c, { p0: 'a', p1: 'b' }, { 'field_mask.paths': ['name', 'description'] }, undefined);
    expect(repeated.field_mask).toEqual({ paths: ['name', 'description'] });
  });

  it('a repeated field (TTS’s `device_ids`) takes one value or many, always as a list', () => {
    const del: HttpBinding = { verb: 'DELETE', path: '/js/applications/{application_ids.application_id}/devices/batch' };
    const c = compileBinding(del);
    expect(buildRequest(del, c, { p0: 'app1' }, { device_ids: 'dev1' }, undefined)).toEqual({
      application_ids: { application_id: 'app1' },
      device_ids: ['dev1'],
    });
    expect(buildRequest(del, c, { p0: 'app1' }, { device_ids: ['dev1', 'dev2'] }, undefined).device_ids).toEqual(['dev1', 'dev2']);
  });

  it('a map entry is a parameter `field[key]` (grpc-gateway), and its key cannot be a prototype key', () => {
    const c = compileBinding(get);
    const req = buildRequest(get, c, { p0: 'a', p1: 'b' }, { 'attributes_contain[room]': 'kitchen', 'attributes_contain[floor]': '1' }, undefined);
    expect(req).toMatchObject({ attributes_contain: { room: 'kitchen', floor: '1' } });
    expect(() => buildRequest(get, c, { p0: 'a', p1: 'b' }, { 'attributes_contain[__proto__]': 'x' }, undefined)).toThrow(PlainStatus);
  });

  it('rejects a repeated scalar query parameter (too many values)', () => {
    expect(() => buildRequest(get, compileBinding(get), { p0: 'a', p1: 'b' }, { field_mask: ['a', 'b'] }, undefined)).toThrow(PlainStatus);
  });

  it('body "*": the body is the request, and path parameters override body fields', () => {
    const body = { end_device: { ids: { device_id: 'other', application_ids: { application_id: 'x' } }, name: 'n' }, field_mask: { paths: ['name'] } };
    const req = buildRequest(put, compileBinding(put), { p0: 'app1', p1: 'dev1' }, {}, JSON.stringify(body));
    expect(req).toEqual({
      end_device: { ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } }, name: 'n' },
      field_mask: { paths: ['name'] },
    });
  });

  it('body "*": an empty body is an empty message; a non-object body is rejected', () => {
    expect(buildRequest(put, compileBinding(put), { p0: 'a', p1: 'b' }, {}, undefined)).toEqual({
      end_device: { ids: { application_ids: { application_id: 'a' }, device_id: 'b' } },
    });
    expect(() => buildRequest(put, compileBinding(put), { p0: 'a', p1: 'b' }, {}, '[1, 2]')).toThrow(PlainStatus);
    expect(() => buildRequest(put, compileBinding(put), { p0: 'a', p1: 'b' }, {}, '{bad')).toThrow(PlainStatus);
  });

  it('accepts lowerCamelCase JSON names for message fields, never renaming map keys', () => {
    const body = {
      endDevice: { ids: { deviceId: 'd', devEui: '0102030405060708' }, serviceProfileId: 'sp', attributes: { myKey: 'v' } },
      fieldMask: { paths: ['name'] },
    };
    const req = buildRequest(put, compileBinding(put), { p0: 'a', p1: 'dev1' }, {}, JSON.stringify(body), UpdateEndDeviceRequest);
    expect(req).toEqual({
      end_device: {
        ids: { device_id: 'dev1', dev_eui: '0102030405060708', application_ids: { application_id: 'a' } },
        service_profile_id: 'sp',
        attributes: { myKey: 'v' },
      },
      field_mask: { paths: ['name'] },
    });
  });

  it('refuses prototype-polluting field names', () => {
    expect(() => buildRequest(get, compileBinding(get), { p0: 'a', p1: 'b' }, { '__proto__.polluted': 'x' }, undefined)).toThrow(PlainStatus);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it(`refuses a body nesting deeper than ${MAX_JSON_DEPTH} levels with a plain InvalidArgument status, before walking it`, () => {
    const c = compileBinding(put);
    // The request object is level 1, end_device 2, the unknown field's objects the rest.
    const body = (levels: number) => `{"end_device":{"x":${'{"a":'.repeat(levels - 3)}{}${'}'.repeat(levels - 3)}}}`;
    expect(() => buildRequest(put, c, { p0: 'a', p1: 'b' }, {}, body(MAX_JSON_DEPTH), UpdateEndDeviceRequest)).not.toThrow();
    for (const levels of [MAX_JSON_DEPTH + 1, 10_000, 1_000_000]) {
      let thrown: unknown;
      try {
        buildRequest(put, c, { p0: 'a', p1: 'b' }, {}, body(levels), UpdateEndDeviceRequest);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(PlainStatus);
      expect((thrown as PlainStatus).toStatus()).toEqual({ code: 3, message: `request body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays` });
    }
  });

  it('refuses a query parameter whose dotted name nests deeper than the bound', () => {
    const c = compileBinding(get);
    // The request object is level 1; each part but the last (which holds the value) one more.
    const name = (parts: number) => Array.from({ length: parts }, (_, i) => `f${i}`).join('.');
    expect(() => buildRequest(get, c, { p0: 'a', p1: 'b' }, { [name(MAX_JSON_DEPTH)]: 'x' }, undefined)).not.toThrow();
    expect(() => buildRequest(get, c, { p0: 'a', p1: 'b' }, { [name(MAX_JSON_DEPTH + 1)]: 'x' }, undefined)).toThrow('query parameters nests deeper');
    expect(() => buildRequest(get, c, { p0: 'a', p1: 'b' }, { [name(8000)]: 'x' }, undefined)).toThrow(PlainStatus);
  });
});
