import { ALL_ADMIN_RIGHTS, ALL_RIGHTS, type CallerIdentity, Right } from '@lorawan/api';
import { callerRightsOn, callerUserId, isAdminCaller } from './caller';

const caller = (extra: Partial<CallerIdentity>): CallerIdentity => ({
  kind: 'api-key',
  id: 'K',
  is_admin: false,
  key_rights: [...ALL_RIGHTS],
  universal: false,
  rights: [],
  ...extra,
});

describe('caller rights on List entries', () => {
  it('a user key: the implied collaborator rights, as far as the key allows', () => {
    const key = caller({ owner: { kind: 'user', id: 'u' }, key_rights: [Right.RIGHT_APPLICATION_INFO, Right.RIGHT_APPLICATION_DEVICES_READ] });
    expect([...callerRightsOn(key, ['RIGHT_APPLICATION_ALL'])].sort()).toEqual(['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_INFO']);
    expect([...callerRightsOn(key, ['RIGHT_APPLICATION_LINK'])]).toEqual(['RIGHT_APPLICATION_INFO']);
    expect(callerRightsOn(key, []).size).toBe(0);
  });

  it('an admin: the admin rights everywhere, never the key rights', () => {
    const admin = caller({ owner: { kind: 'user', id: 'admin' }, is_admin: true });
    const held = callerRightsOn(admin, []);
    expect(held.has(Right.RIGHT_APPLICATION_INFO)).toBe(true);
    expect(held.has(Right.RIGHT_APPLICATION_DEVICES_READ_KEYS)).toBe(false);
    expect(held.size).toBe(ALL_ADMIN_RIGHTS.length);
    expect(callerRightsOn(admin, ['RIGHT_ALL']).has(Right.RIGHT_APPLICATION_DEVICES_READ_KEYS)).toBe(true);
  });

  it('internal callers hold everything; no caller nothing', () => {
    expect(callerRightsOn(caller({ kind: 'internal', universal: true }), []).size).toBe(ALL_RIGHTS.length);
    expect(callerRightsOn(undefined, ['RIGHT_ALL']).size).toBe(0);
  });

  it('tells admins and the user behind a key', () => {
    expect(isAdminCaller(caller({ is_admin: true }))).toBe(true);
    expect(isAdminCaller(caller({ universal: true }))).toBe(true);
    expect(isAdminCaller(caller({}))).toBe(false);
    expect(isAdminCaller(undefined)).toBe(false);
    expect(callerUserId(caller({ owner: { kind: 'user', id: 'u' } }))).toBe('u');
    expect(callerUserId(caller({ owner: { kind: 'application', id: 'a' } }))).toBeUndefined();
  });
});
