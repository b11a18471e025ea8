import { buildRequest, compileBinding } from './request-builder';
import { PlainStatus } from './gateway-errors';
import { type HttpBinding, UpdateEndDeviceRequest } from '@lorawan/api';

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

  it('rejects a repeated scalar query parameter (too many values)', () => {
    expect(() => buildRequest(get, compileBinding(get), { p0: 'a', p1: 'b' }, { field_mask: ['a', 'b'] }, undefined)).toThrow(PlainStatus);
  });

  it('body "*": the body is the request, and path parameters override body fields', () => {
    const body = { end_device: { ids: { device_id: 'other', application_ids: { application_id: 'x' } }, name: 'n' }, field_mask: { paths: ['name'] } };
    const req = buildRequest(put, compileBinding(put), { p0: 'app1', p1: 'dev1' }, {}, JSON.stringify(body));
    expect(req).toEqual({ end_device: { ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } }, name: 'n' }, field_mask: { paths: ['name'] } });
  });

  it('body "*": an empty body is an empty message; a non-object body is rejected', () => {
    expect(buildRequest(put, compileBinding(put), { p0: 'a', p1: 'b' }, {}, undefined)).toEqual({ end_device: { ids: { application_ids: { application_id: 'a' }, device_id: 'b' } } });
    expect(() => buildRequest(put, compileBinding(put), { p0: 'a', p1: 'b' }, {}, '[1, 2]')).toThrow(PlainStatus);
    expect(() => buildRequest(put, compileBinding(put), { p0: 'a', p1: 'b' }, {}, '{bad')).toThrow(PlainStatus);
  });

  it('accepts lowerCamelCase JSON names for message fields, never renaming map keys', () => {
    const body = { endDevice: { ids: { deviceId: 'd', devEui: '0102030405060708' }, serviceProfileId: 'sp', attributes: { myKey: 'v' } }, fieldMask: { paths: ['name'] } };
    const req = buildRequest(put, compileBinding(put), { p0: 'a', p1: 'dev1' }, {}, JSON.stringify(body), UpdateEndDeviceRequest);
    expect(req).toEqual({
      end_device: { ids: { device_id: 'dev1', dev_eui: '0102030405060708', application_ids: { application_id: 'a' } }, service_profile_id: 'sp', attributes: { myKey: 'v' } },
      field_mask: { paths: ['name'] },
    });
  });

  it('refuses prototype-polluting field names', () => {
    expect(() => buildRequest(get, compileBinding(get), { p0: 'a', p1: 'b' }, { '__proto__.polluted': 'x' }, undefined)).toThrow(PlainStatus);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
