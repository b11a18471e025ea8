import { type CallerIdentity, type RpcContext } from './context';
import { ALL_RIGHTS, type Right, RIGHT_NUMBERS } from './rights';
import { fromWireContext, packCaller, packRights, toWireContext, unpackRights } from './wire-context';

const byNumber = (a: Right, b: Right) => RIGHT_NUMBERS[a] - RIGHT_NUMBERS[b];

describe('rights on the wire', () => {
  it('packs every right into a bitmask and back, exactly', () => {
    expect(unpackRights(packRights(ALL_RIGHTS))).toEqual([...ALL_RIGHTS].sort(byNumber));
    for (const right of ALL_RIGHTS) expect(unpackRights(packRights([right]))).toEqual([right]);
    expect(packRights([])).toBe('');
    expect(unpackRights('')).toEqual([]);
    const some: Right[] = ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_USER_INFO', 'RIGHT_APPLICATION_DEVICES_READ_KEYS'];
    expect(unpackRights(packRights(some))).toEqual([...some].sort(byNumber));
  });

  it('drops bits of rights it does not know, and refuses anything but a hex bitmask', () => {
    expect(unpackRights(((1n << 200n) | (1n << 20n)).toString(16))).toEqual([]); // too long: not a mask of ours
    expect(unpackRights(((1n << 120n) | (1n << 20n)).toString(16))).toEqual(['RIGHT_APPLICATION_DEVICES_READ']);
    expect(unpackRights('zz')).toEqual([]);
    expect(unpackRights('-1')).toEqual([]);
  });

  it('sends a context with packed rights and receives it unpacked, entity rights included', () => {
    const caller: CallerIdentity = {
      kind: 'api-key',
      id: 'K',
      is_admin: false,
      key_rights: ['RIGHT_APPLICATION_ALL'],
      universal: false,
      entity: { kind: 'application', id: 'a' },
      rights: ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DEVICES_READ'],
      entity_rights: [{ entity: { kind: 'application', id: 'b' }, rights: ['RIGHT_APPLICATION_INFO'] }],
    };
    const ctx: RpcContext = { request_id: 'r', correlation_ids: ['c'], caller };
    const wire = JSON.parse(JSON.stringify(toWireContext(ctx))) as RpcContext;
    expect(typeof wire.caller?.rights).toBe('string');
    expect(JSON.stringify(wire).length).toBeLessThan(JSON.stringify(ctx).length);
    expect(fromWireContext(wire)).toEqual(ctx);
    expect(packCaller(caller)).toBe(packCaller(caller));
  });

  it('takes a context whose caller has lists (tests, older senders) as it is', () => {
    const ctx: RpcContext = {
      request_id: 'r',
      correlation_ids: [],
      caller: { kind: 'internal', id: 'x', is_admin: false, key_rights: [], universal: true, rights: [] },
    };
    expect(fromWireContext(ctx)).toBe(ctx);
    expect(fromWireContext({ request_id: 'r', correlation_ids: [] })).toEqual({ request_id: 'r', correlation_ids: [] });
  });
});
