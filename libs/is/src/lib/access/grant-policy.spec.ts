import { type CallerIdentity, type EntityRef, impliedRights, type Right, rightsOfKind, sortRights } from '@lorawan/api';
import type { StackError } from '@lorawan/errors';
import { caller } from './access-fixtures.conformance';
import { assertGrantable, ungrantableRights } from './grant-policy';

const app: EntityRef = { kind: 'application', id: 'app1' };
const alice: EntityRef = { kind: 'user', id: 'alice' };
const implied = (...r: Right[]) => sortRights(impliedRights(r));

/** Alice's own user key with `keyRights`, resolved on `entity` with `rights`. */
const aliceKey = (entity: EntityRef, rights: Right[], keyRights: Right[]): CallerIdentity =>
  caller(entity, rights, { owner: alice, key_rights: implied(...keyRights) });

describe('grant policy: a key only gets rights its creator holds on the entity', () => {
  it.each<[string, EntityRef, Right[], CallerIdentity | undefined, Right[]]>([
    [
      'rights the caller holds',
      app,
      ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_LINK'],
      caller(app, implied('RIGHT_APPLICATION_LINK', 'RIGHT_APPLICATION_SETTINGS_API_KEYS')),
      [],
    ],
    [
      'a right the caller lacks',
      app,
      ['RIGHT_APPLICATION_DEVICES_READ_KEYS'],
      caller(app, implied('RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_SETTINGS_API_KEYS')),
      ['RIGHT_APPLICATION_DEVICES_READ_KEYS'],
    ],
    [
      'APPLICATION_ALL without holding it (an admin’s universal rights exclude *_ALL)',
      app,
      ['RIGHT_APPLICATION_ALL'],
      caller(
        app,
        rightsOfKind('application').filter((r) => r !== 'RIGHT_APPLICATION_ALL'),
      ),
      ['RIGHT_APPLICATION_ALL'],
    ],
    ['APPLICATION_ALL held', app, ['RIGHT_APPLICATION_ALL'], caller(app, [...rightsOfKind('application')]), []],
    [
      'rights of another kind on an application key, even with RIGHT_ALL held',
      app,
      ['RIGHT_APPLICATION_INFO', 'RIGHT_ALL', 'RIGHT_GATEWAY_INFO'],
      caller(app, [...rightsOfKind('application')], { key_rights: implied('RIGHT_ALL') }),
      ['RIGHT_ALL', 'RIGHT_GATEWAY_INFO'],
    ],
    [
      'rights resolved on another entity count as none',
      app,
      ['RIGHT_APPLICATION_INFO'],
      caller({ kind: 'application', id: 'app2' }, [...rightsOfKind('application')]),
      ['RIGHT_APPLICATION_INFO'],
    ],
    ['no caller', app, ['RIGHT_APPLICATION_INFO'], undefined, ['RIGHT_APPLICATION_INFO']],
    [
      'internal (universal) caller: any right of the kind',
      app,
      ['RIGHT_APPLICATION_ALL', 'RIGHT_USER_INFO'],
      caller(app, [], { universal: true }),
      ['RIGHT_USER_INFO'],
    ],
    // User keys.
    ['user rights held on the user', alice, ['RIGHT_USER_INFO', 'RIGHT_USER_APPLICATIONS_LIST'], caller(alice, implied('RIGHT_USER_ALL')), []],
    [
      'user rights not held on the user',
      alice,
      ['RIGHT_USER_DELETE'],
      caller(alice, ['RIGHT_USER_INFO', 'RIGHT_USER_SETTINGS_API_KEYS']),
      ['RIGHT_USER_DELETE'],
    ],
    [
      'the user itself grants what its own key holds beyond the user (RIGHT_ALL)',
      alice,
      ['RIGHT_ALL', 'RIGHT_APPLICATION_ALL'],
      aliceKey(alice, [...rightsOfKind('user')], ['RIGHT_ALL']),
      [],
    ],
    [
      'the user itself, beyond what its key holds',
      alice,
      ['RIGHT_ALL', 'RIGHT_APPLICATION_INFO', 'RIGHT_GATEWAY_INFO'],
      aliceKey(alice, [...rightsOfKind('user')], ['RIGHT_USER_ALL', 'RIGHT_APPLICATION_ALL']),
      ['RIGHT_ALL', 'RIGHT_GATEWAY_INFO'],
    ],
    [
      'an admin hands out no *_ALL right on another user’s key',
      alice,
      ['RIGHT_USER_INFO', 'RIGHT_APPLICATION_ALL'],
      caller(alice, ['RIGHT_USER_INFO', 'RIGHT_USER_SETTINGS_API_KEYS'], {
        owner: { kind: 'user', id: 'admin' },
        is_admin: true,
        key_rights: implied('RIGHT_ALL'),
      }),
      ['RIGHT_APPLICATION_ALL'],
    ],
    [
      'an admin hands out the admin rights its key holds on another user’s key (TTS universal rights), not *_ALL nor device keys',
      alice,
      ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_GATEWAY_INFO', 'RIGHT_APPLICATION_DEVICES_READ_KEYS', 'RIGHT_ALL'],
      caller(alice, ['RIGHT_USER_INFO', 'RIGHT_USER_SETTINGS_API_KEYS'], {
        owner: { kind: 'user', id: 'admin' },
        is_admin: true,
        key_rights: implied('RIGHT_ALL'),
      }),
      ['RIGHT_ALL', 'RIGHT_APPLICATION_DEVICES_READ_KEYS'],
    ],
    [
      'an admin whose key lacks a right does not hand it out',
      alice,
      ['RIGHT_APPLICATION_DEVICES_READ'],
      caller(alice, ['RIGHT_USER_INFO', 'RIGHT_USER_SETTINGS_API_KEYS'], {
        owner: { kind: 'user', id: 'admin' },
        is_admin: true,
        key_rights: implied('RIGHT_USER_ALL'),
      }),
      ['RIGHT_APPLICATION_DEVICES_READ'],
    ],
    [
      'a non-admin hands out no other user’s reach',
      alice,
      ['RIGHT_APPLICATION_DEVICES_READ'],
      caller(alice, ['RIGHT_USER_INFO', 'RIGHT_USER_SETTINGS_API_KEYS'], { owner: { kind: 'user', id: 'bob' }, key_rights: implied('RIGHT_ALL') }),
      ['RIGHT_APPLICATION_DEVICES_READ'],
    ],
    [
      'an application key named like the user grants nothing beyond the user',
      alice,
      ['RIGHT_APPLICATION_INFO'],
      caller(alice, ['RIGHT_USER_INFO'], { owner: { kind: 'application', id: 'alice' }, key_rights: implied('RIGHT_ALL') }),
      ['RIGHT_APPLICATION_INFO'],
    ],
    ['internal (universal) caller on a user key: anything', alice, ['RIGHT_ALL'], caller(alice, [], { universal: true }), []],
  ])('%s', (_, entity, rights, who, missing) => {
    expect(ungrantableRights(entity, rights, who)).toEqual(missing);
  });

  it('refuses with insufficient_<kind>_rights naming the entity and the missing rights', () => {
    let err: StackError | undefined;
    try {
      assertGrantable(
        app,
        ['RIGHT_APPLICATION_DEVICES_WRITE_KEYS', 'RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DEVICES_READ_KEYS'],
        caller(app, ['RIGHT_APPLICATION_INFO']),
      );
    } catch (e) {
      err = e as StackError;
    }
    expect(err?.toDetails()).toMatchObject({
      namespace: 'pkg/auth/rights',
      name: 'insufficient_application_rights',
      code: 7,
      attributes: { uid: 'app1', missing: ['RIGHT_APPLICATION_DEVICES_READ_KEYS', 'RIGHT_APPLICATION_DEVICES_WRITE_KEYS'] },
    });
    expect(() => assertGrantable(app, ['RIGHT_APPLICATION_INFO'], caller(app, ['RIGHT_APPLICATION_INFO']))).not.toThrow();
  });
});
