import { ALL_ADMIN_RIGHTS, ALL_RIGHTS, type EntityRef, impliedRights, type Right, rightsHeldBy, rightsOfKind, sortRights } from '@lorawan/api';
import { InMemoryIdentityDirectory } from './access-fixtures.conformance';
import type { VerifiedCredential } from './credential';
import { membershipAccount, RightsResolver, rightsGiven } from './rights-resolver';

const app = (id: string): EntityRef => ({ kind: 'application', id });
const gtw = (id: string): EntityRef => ({ kind: 'gateway', id });
const usr = (id: string): EntityRef => ({ kind: 'user', id });
const org = (id: string): EntityRef => ({ kind: 'organization', id });

const directory = new InMemoryIdentityDirectory()
  .addUser('alice')
  .addUser('admin', { admin: true })
  .addUser('pending', { state: 'STATE_REQUESTED' })
  .addUser('suspended-admin', { admin: true, state: 'STATE_SUSPENDED' })
  .addEntity(app('alice-app'), { alice: ['RIGHT_APPLICATION_ALL'] })
  .addEntity(app('shared-app'), { alice: ['RIGHT_APPLICATION_LINK', 'RIGHT_APPLICATION_DEVICES_READ'] })
  .addEntity(app('admin-app'), { admin: ['RIGHT_ALL'] })
  .addEntity(app('other-app'))
  .addEntity(gtw('alice-app'))
  .addEntity(gtw('alice-gtw'), { alice: ['RIGHT_GATEWAY_ALL'] })
  .addEntity(gtw('other-gtw'))
  // An organization alice is a member of, collaborating on an application; the directory answers
  // what each account reaches (for a user: through its organizations too, the store's chains).
  .addEntity(org('team'), { alice: ['RIGHT_ALL'] })
  .addEntity(org('other-team'))
  .addEntity(app('team-app'), { team: ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_LINK'], alice: ['RIGHT_APPLICATION_DEVICES_READ'] });

const resolver = new RightsResolver(directory);

function appKey(id: string, rights: Right[]): VerifiedCredential {
  return { kind: 'api-key', id: 'APPKEY', owner: app(id), keyRights: impliedRights(rights) };
}
function gtwKey(id: string, rights: Right[]): VerifiedCredential {
  return { kind: 'api-key', id: 'GTWKEY', owner: gtw(id), keyRights: impliedRights(rights) };
}
function userKey(userId: string, rights: Right[], kind: VerifiedCredential['kind'] = 'api-key'): VerifiedCredential {
  const user = {
    alice: { admin: false, state: 'STATE_APPROVED' },
    admin: { admin: true, state: 'STATE_APPROVED' },
    pending: { admin: false, state: 'STATE_REQUESTED' },
    'suspended-admin': { admin: true, state: 'STATE_SUSPENDED' },
  }[userId];
  return { kind, id: 'USERKEY', owner: usr(userId), keyRights: impliedRights(rights), user: user && { user_id: userId, ...user } };
}
const adminKey = userKey('admin', ['RIGHT_ALL'], 'admin-key');
function orgKey(id: string, rights: Right[]): VerifiedCredential {
  return { kind: 'api-key', id: 'ORGKEY', owner: org(id), keyRights: impliedRights(rights) };
}

const of = (kind: EntityRef['kind'], except: (r: Right) => boolean = () => false) => sortRights(rightsOfKind(kind).filter((r) => !except(r)));
const adminOf = (kind: EntityRef['kind']) => sortRights(rightsOfKind(kind).filter((r) => ALL_ADMIN_RIGHTS.includes(r)));

describe('RightsResolver: effective rights of a credential on an entity', () => {
  it.each<[string, VerifiedCredential, EntityRef, Right[]]>([
    // Application and gateway keys: their own rights of their kind, on their owner only.
    ['app key on its application', appKey('alice-app', ['RIGHT_APPLICATION_DEVICES_READ']), app('alice-app'), ['RIGHT_APPLICATION_DEVICES_READ']],
    ['app key on another application', appKey('alice-app', ['RIGHT_APPLICATION_ALL']), app('other-app'), []],
    ['RIGHT_ALL app key: scoped to application rights', appKey('alice-app', ['RIGHT_ALL']), app('alice-app'), of('application')],
    ['RIGHT_ALL app key on a gateway with the same ID', appKey('alice-app', ['RIGHT_ALL']), gtw('alice-app'), []],
    ['RIGHT_ALL app key on a user', appKey('alice-app', ['RIGHT_ALL']), usr('alice'), []],
    [
      'LINK implies INFO, TRAFFIC_READ, TRAFFIC_DOWN_WRITE',
      appKey('alice-app', ['RIGHT_APPLICATION_LINK']),
      app('alice-app'),
      sortRights(['RIGHT_APPLICATION_LINK', 'RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_TRAFFIC_READ', 'RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE']),
    ],
    ['app key with user rights only', appKey('alice-app', ['RIGHT_USER_ALL']), app('alice-app'), []],
    ['gateway key on its gateway', gtwKey('alice-gtw', ['RIGHT_GATEWAY_LINK']), gtw('alice-gtw'), ['RIGHT_GATEWAY_INFO', 'RIGHT_GATEWAY_LINK']],
    ['gateway key on an application with the same ID', gtwKey('alice-app', ['RIGHT_ALL']), app('alice-app'), []],
    // Organization keys: on the organization, what an organization holds (its own rights and those
    // on its entities); elsewhere, the organization's collaborator rights (implied) ∩ the key's.
    ['RIGHT_ALL organization key on its organization', orgKey('team', ['RIGHT_ALL']), org('team'), sortRights(rightsHeldBy('organization'))],
    ['organization key on another organization', orgKey('team', ['RIGHT_ALL']), org('other-team'), []],
    [
      'organization key on an application the organization collaborates on',
      orgKey('team', ['RIGHT_APPLICATION_ALL']),
      app('team-app'),
      sortRights([
        'RIGHT_APPLICATION_DEVICES_READ',
        'RIGHT_APPLICATION_LINK',
        'RIGHT_APPLICATION_INFO',
        'RIGHT_APPLICATION_TRAFFIC_READ',
        'RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE',
      ]),
    ],
    ['organization key with organization rights only, on its application', orgKey('team', ['RIGHT_ORGANIZATION_ALL']), app('team-app'), []],
    ['organization key: within the key rights', orgKey('team', ['RIGHT_APPLICATION_INFO']), app('team-app'), ['RIGHT_APPLICATION_INFO']],
    ['organization key on an application it does not collaborate on', orgKey('team', ['RIGHT_ALL']), app('other-app'), []],
    [
      'user key of a member on the organization: rights on its entities included',
      userKey('alice', ['RIGHT_ALL']),
      org('team'),
      sortRights(rightsHeldBy('organization')),
    ],
    [
      'user key on a member’s organization entity (as the directory resolves it)',
      userKey('alice', ['RIGHT_APPLICATION_ALL']),
      app('team-app'),
      ['RIGHT_APPLICATION_DEVICES_READ'],
    ],
    // User keys: membership ∩ key rights ∩ the entity kind's rights.
    ['user key RIGHT_ALL on an app the user owns (APPLICATION_ALL)', userKey('alice', ['RIGHT_ALL']), app('alice-app'), of('application')],
    [
      'user key: collaborator rights ∩ key rights',
      userKey('alice', ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DELETE']),
      app('shared-app'),
      ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_INFO'],
    ],
    [
      'user key: collaborator rights are implied (LINK)',
      userKey('alice', ['RIGHT_APPLICATION_ALL']),
      app('shared-app'),
      sortRights([
        'RIGHT_APPLICATION_DEVICES_READ',
        'RIGHT_APPLICATION_INFO',
        'RIGHT_APPLICATION_LINK',
        'RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE',
        'RIGHT_APPLICATION_TRAFFIC_READ',
      ]),
    ],
    ['user key with application rights only, on the user', userKey('alice', ['RIGHT_APPLICATION_ALL']), usr('alice'), []],
    ['user key on an app the user does not collaborate on', userKey('alice', ['RIGHT_ALL']), app('other-app'), []],
    ['user key on a missing app (non-admin)', userKey('alice', ['RIGHT_ALL']), app('ghost-app'), []],
    ['user key RIGHT_ALL on the user itself: all user rights', userKey('alice', ['RIGHT_ALL']), usr('alice'), of('user')],
    ['user key RIGHT_USER_INFO on the user itself', userKey('alice', ['RIGHT_USER_INFO']), usr('alice'), ['RIGHT_USER_INFO']],
    ['user key on another user', userKey('alice', ['RIGHT_ALL']), usr('admin'), []],
    ['user key on a gateway the user owns', userKey('alice', ['RIGHT_ALL']), gtw('alice-gtw'), of('gateway')],
    [
      'user awaiting approval: its profile and account only (TTS)',
      userKey('pending', ['RIGHT_ALL']),
      usr('pending'),
      ['RIGHT_USER_DELETE', 'RIGHT_USER_INFO', 'RIGHT_USER_SETTINGS_BASIC'],
    ],
    ['user awaiting approval: within its key rights', userKey('pending', ['RIGHT_USER_INFO']), usr('pending'), ['RIGHT_USER_INFO']],
    ['user awaiting approval: nothing on its applications', userKey('pending', ['RIGHT_ALL']), app('pending-app'), []],
    ['admin not approved: no admin rights', userKey('suspended-admin', ['RIGHT_ALL']), app('other-app'), []],
    // Admins: universal ALL_ADMIN_RIGHTS (no *_KEYS, no secrets, no *_ALL) unless a collaborator.
    [
      'admin key on an app it does not collaborate on: no device keys',
      adminKey,
      app('other-app'),
      of('application', (r) => ['RIGHT_APPLICATION_DEVICES_READ_KEYS', 'RIGHT_APPLICATION_DEVICES_WRITE_KEYS', 'RIGHT_APPLICATION_ALL'].includes(r)),
    ],
    ['admin key on its own app: every right', adminKey, app('admin-app'), of('application')],
    ['admin key on a missing app: admin rights (so the IS can say 404)', adminKey, app('ghost-app'), adminOf('application')],
    [
      'admin key on a gateway: no secrets',
      adminKey,
      gtw('other-gtw'),
      of('gateway', (r) => ['RIGHT_GATEWAY_READ_SECRETS', 'RIGHT_GATEWAY_WRITE_SECRETS', 'RIGHT_GATEWAY_ALL'].includes(r)),
    ],
    ['admin key on another user', adminKey, usr('alice'), adminOf('user')],
    ['admin key on itself', adminKey, usr('admin'), of('user')],
    [
      'admin user key: universal rights ∩ key rights',
      userKey('admin', ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DEVICES_READ_KEYS']),
      app('other-app'),
      ['RIGHT_APPLICATION_INFO'],
    ],
  ])('%s', async (_, credential, entity, expected) => {
    expect(await resolver.rightsOn(credential, entity)).toEqual(expected);
  });

  it('describes an application key as a caller bound to its application', async () => {
    expect(await resolver.callerIdentity(appKey('alice-app', ['RIGHT_ALL']), app('alice-app'))).toEqual({
      kind: 'api-key',
      id: 'APPKEY',
      owner: app('alice-app'),
      is_admin: false,
      key_rights: of('application'),
      universal: false,
      entity: app('alice-app'),
      rights: of('application'),
    });
  });

  it('describes the admin key as an admin user key with every right; no entity, no rights', async () => {
    expect(await resolver.callerIdentity(adminKey)).toEqual({
      kind: 'admin-key',
      id: 'USERKEY',
      owner: usr('admin'),
      is_admin: true,
      key_rights: sortRights(ALL_RIGHTS),
      universal: false,
      rights: [],
    });
  });

  it('a user key keeps every right it holds (it reaches other entities through the user)', async () => {
    const caller = await resolver.callerIdentity(userKey('alice', ['RIGHT_USER_INFO', 'RIGHT_APPLICATION_LINK']), usr('alice'));
    expect(caller.key_rights).toEqual(
      sortRights([
        'RIGHT_USER_INFO',
        'RIGHT_APPLICATION_LINK',
        'RIGHT_APPLICATION_INFO',
        'RIGHT_APPLICATION_TRAFFIC_READ',
        'RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE',
      ]),
    );
    expect(caller.rights).toEqual(['RIGHT_USER_INFO']);
    expect(caller.is_admin).toBe(false);
  });

  it('resolves a caller the gateway resolved for another entity (or none) again, on any entity, as Authorize would', async () => {
    for (const [credential, entity] of [
      [userKey('alice', ['RIGHT_ALL']), org('team')],
      [userKey('alice', ['RIGHT_APPLICATION_INFO']), app('team-app')],
      [adminKey, app('other-app')],
      [orgKey('team', ['RIGHT_ALL']), app('team-app')],
      [orgKey('team', ['RIGHT_ALL']), org('other-team')],
      [appKey('alice-app', ['RIGHT_APPLICATION_ALL']), app('alice-app')],
    ] as const) {
      const caller = await resolver.callerIdentity(credential, gtw('other-gtw'));
      const again = await resolver.credentialOf(caller);
      expect(again && (await resolver.rightsOn(again, entity))).toEqual(await resolver.rightsOn(credential, entity));
    }
    const pending = await resolver.credentialOf(await resolver.callerIdentity(userKey('pending', ['RIGHT_ALL'])));
    expect(pending?.user).toEqual({ user_id: 'pending', admin: false, state: 'STATE_REQUESTED' });
    expect(await resolver.credentialOf({ kind: 'internal', id: 'as', is_admin: false, key_rights: [], universal: true, rights: [] })).toBeUndefined();
  });

  it('membershipAccount and rightsGiven: the account whose grant counts, and the rights given that grant (read by a transaction)', () => {
    expect(membershipAccount(userKey('alice', ['RIGHT_ALL']), org('team'))).toBe('alice');
    expect(membershipAccount(userKey('alice', ['RIGHT_ALL']), usr('alice'))).toBeUndefined();
    expect(membershipAccount(orgKey('team', ['RIGHT_ALL']), org('team'))).toBeUndefined();
    expect(membershipAccount(orgKey('team', ['RIGHT_ALL']), app('team-app'))).toBe('team');
    expect(membershipAccount(appKey('alice-app', ['RIGHT_ALL']), app('alice-app'))).toBeUndefined();
    const consent: Right = 'RIGHT_ORGANIZATION_ADD_AS_COLLABORATOR';
    expect(rightsGiven(userKey('alice', ['RIGHT_ALL']), org('team'), [consent, 'RIGHT_ORGANIZATION_INFO'])).toEqual(
      sortRights([consent, 'RIGHT_ORGANIZATION_INFO']),
    );
    expect(rightsGiven(userKey('alice', ['RIGHT_ORGANIZATION_INFO']), org('team'), [consent, 'RIGHT_ORGANIZATION_INFO'])).toEqual(['RIGHT_ORGANIZATION_INFO']);
    expect(rightsGiven(userKey('alice', ['RIGHT_ALL']), org('team'), [])).toEqual([]);
    expect(rightsGiven(userKey('pending', ['RIGHT_ALL']), org('team'), [consent])).toEqual([]);
    expect(rightsGiven(adminKey, org('other-team'), [])).toContain(consent);
  });
});
