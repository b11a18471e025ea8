/**
 * Organizations end to end, in both run modes: a user creates an organization and adds members; an
 * application created under the organization (or sharing with it) is reached by a member with its
 * rights on the organization ∩ the organization's on the application (TTS membership chains); a
 * member removed from the organization loses that access at once (despite the gateway's rights
 * cache); `/users/{id}/applications` includes what a user reaches through organizations; the
 * organization's events reach a member's stream, history included; organization API keys; the
 * delete rules (an organization that still collaborates cannot be deleted; purge frees the ID and
 * removes memberships); bad requests answered in TTS's shape with nothing changed.
 * Rules: TTS `organization_registry.go`, `organization_access.go`, `store/membership.go`;
 * docs/identity-and-access.md "Organizations".
 */
import { ALL_ADMIN_RIGHTS, type EventJson, type Right, rightsOfKind } from '@lorawan/api';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Access, bearer, type CreatedKey, expectHttp, freshId } from './access';
import { isDevicesPath } from './devices';
import { EventStream } from './event-stream';
import { Api, type ApiResponse, expectTtsError, expectValidationError } from './http-client';

/** A long cache, so that only the IS's invalidation can make a membership change take effect at once. */
const ENV = { AUTH_CACHE_TTL_MS: '60000' };

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'events'], env: ENV })],
  ['embedded', () => startEmbeddedStack({ env: ENV })],
];

const R = {
  APP_INFO: 'RIGHT_APPLICATION_INFO',
  DEVICES_READ: 'RIGHT_APPLICATION_DEVICES_READ',
  DEVICES_WRITE: 'RIGHT_APPLICATION_DEVICES_WRITE',
  ORG_INFO: 'RIGHT_ORGANIZATION_INFO',
  ORG_MEMBERS: 'RIGHT_ORGANIZATION_SETTINGS_MEMBERS',
} as const satisfies Record<string, Right>;

const userIds = (user_id: string) => ({ user_ids: { user_id } });
const orgIds = (organization_id: string) => ({ organization_ids: { organization_id } });

/**
 * The rights the admin may put on another user's key (its universal rights): every user,
 * application, gateway and organization right but the `*_ALL` ones, device keys and gateway
 * secrets. The key still reaches only what its user collaborates on.
 */
const USER_KEY_RIGHTS = (['user', 'application', 'gateway', 'organization'] as const).flatMap((kind) =>
  rightsOfKind(kind).filter((r) => ALL_ADMIN_RIGHTS.includes(r)),
);

describe.each(MODES)('Identity Server: organizations (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const access = new Access(api);
  const [alice, bob, carol] = [freshId('org-alice'), freshId('org-bob'), freshId('org-carol')];
  let aliceKey: CreatedKey;
  let bobKey: CreatedKey;
  const streams: EventStream[] = [];

  const ok = (res: ApiResponse, what: string) => expectHttp(res, 200, `${mode}: ${what}`);
  const as = (key: CreatedKey) => bearer(key.token);
  const orgPath = (org: string) => `/api/v3/organizations/${org}`;
  const members = (org: string) => `${orgPath(org)}/collaborators`;
  const setMember = (org: string, user: string, rights: string[], key = aliceKey) =>
    api.put(members(org), { collaborator: { ids: userIds(user), rights } }, as(key));

  async function aliceOrg(extra: Record<string, unknown> = {}): Promise<string> {
    const org = freshId('org');
    ok(await api.post(`/api/v3/users/${alice}/organizations`, { organization: { ids: { organization_id: org }, ...extra } }, as(aliceKey)), `create ${org}`);
    return org;
  }

  async function subscribe(identifiers: unknown[], key: CreatedKey, extra: Record<string, unknown> = {}): Promise<EventStream> {
    const s = await EventStream.open(stack.baseUrl, { authorization: `Bearer ${key.token}`, body: { identifiers, ...extra } });
    streams.push(s);
    if (s.status !== 200) throw new Error(`${mode}: stream: HTTP ${s.status}: ${s.text.slice(0, 2000)}`);
    expect((await s.nextEvent()).name).toBe('events.stream.start');
    return s;
  }

  /** The next event on the stream named `name` (others, e.g. of earlier steps, are skipped). */
  async function nextNamed(s: EventStream, name: string): Promise<EventJson> {
    for (;;) {
      const event = await s.nextEvent();
      if (event.name === name) return event;
    }
  }

  beforeAll(async () => {
    stack = await start();
    for (const user of [alice, bob, carol]) await access.createUser(user);
    aliceKey = await access.createKey('user', alice, USER_KEY_RIGHTS);
    bobKey = await access.createKey('user', bob, USER_KEY_RIGHTS);
  });

  afterAll(async () => {
    for (const s of streams) s.close();
    await stack?.stop();
  });

  it('a user creates an organization: it holds all rights on it, contacts default to it, Get, List and Update work', async () => {
    const org = freshId('org');
    const created = await api.post(`/api/v3/users/${alice}/organizations`, { organization: { ids: { organization_id: org }, name: 'Team' } }, as(aliceKey));
    ok(created, 'create');
    expect(created.json).toMatchObject({
      ids: { organization_id: org },
      name: 'Team',
      administrative_contact: userIds(alice),
      technical_contact: userIds(alice),
    });
    const members = await api.get(`${orgPath(org)}/collaborators`, as(aliceKey));
    ok(members, 'list members');
    expect(members.json.collaborators).toEqual([{ ids: userIds(alice), rights: ['RIGHT_ALL'] }]);
    const rights = await api.get(`${orgPath(org)}/rights`, as(aliceKey));
    ok(rights, 'rights');
    expect(rights.json.rights).toEqual(expect.arrayContaining([R.ORG_INFO, R.ORG_MEMBERS, R.DEVICES_READ]));

    ok(
      await api.put(
        orgPath(org),
        { organization: { ids: { organization_id: org }, description: 'Our team' }, field_mask: { paths: ['description'] } },
        as(aliceKey),
      ),
      'update',
    );
    const got = await api.get(`${orgPath(org)}?field_mask=name,description`, as(aliceKey));
    ok(got, 'get');
    expect(got.json).toMatchObject({ ids: { organization_id: org }, name: 'Team', description: 'Our team' });
    const mine = await api.get(`/api/v3/users/${alice}/organizations?field_mask=name`, as(aliceKey));
    ok(mine, 'list mine');
    expect(mine.json.organizations.map((o: { ids: { organization_id: string } }) => o.ids.organization_id)).toContain(org);
    // Another user sees nothing of it.
    expectTtsError(await api.get(orgPath(org), as(bobKey)), 403, 7, 'pkg/auth/rights', 'no_organization_rights');
  });

  it('a member reaches an application of the organization with its rights there ∩ the organization’s, and loses it at once when removed', async () => {
    const org = await aliceOrg();
    const app = freshId('org-app');
    ok(await api.post(`/api/v3/organizations/${org}/applications`, { application: { ids: { application_id: app } } }, as(aliceKey)), 'create app under org');
    // Refused first, so that the gateway has the refusal in its cache.
    expectTtsError(await api.get(isDevicesPath(app), as(bobKey)), 403, 7, 'pkg/auth/rights', 'no_application_rights', { uid: app });

    ok(await setMember(org, bob, [R.DEVICES_READ, R.APP_INFO]), 'add bob');
    ok(await api.get(isDevicesPath(app), as(bobKey)), 'bob lists devices through the organization');
    const bobRights = await api.get(`/api/v3/applications/${app}/rights`, as(bobKey));
    ok(bobRights, 'bob rights');
    expect(bobRights.json.rights).toEqual([R.DEVICES_READ, R.APP_INFO].sort());
    // Rights bob holds through the organization only as granted there: no device writes.
    const write = await api.post(
      `${isDevicesPath(app)}`,
      { end_device: { ids: { device_id: 'dev-1', application_ids: { application_id: app } } } },
      as(bobKey),
    );
    expect(write.status).toBe(403);
    // The user's applications include those reached through organizations.
    const bobApps = await api.get(`/api/v3/users/${bob}/applications?field_mask=name`, as(bobKey));
    ok(bobApps, 'bob lists his applications');
    expect(bobApps.json.applications.map((a: { ids: { application_id: string } }) => a.ids.application_id)).toContain(app);
    const orgApps = await api.get(`/api/v3/organizations/${org}/applications`, as(aliceKey));
    ok(orgApps, 'the organization’s applications');
    expect(orgApps.json.applications.map((a: { ids: { application_id: string } }) => a.ids.application_id)).toEqual([app]);

    ok(await api.delete(`${members(org)}/user/${bob}`, as(aliceKey)), 'remove bob from the organization');
    expectTtsError(await api.get(isDevicesPath(app), as(bobKey)), 403, 7, 'pkg/auth/rights', 'no_application_rights', { uid: app });
    const after = await api.get(`/api/v3/users/${bob}/applications`, as(bobKey));
    ok(after, 'bob lists again');
    expect(after.json.applications ?? []).toEqual([]);
  });

  it('an organization made collaborator of an existing application gives its members access; removing it takes it away at once', async () => {
    const org = await aliceOrg();
    const app = freshId('org-shared');
    await access.createApplication(app, alice, as(aliceKey));
    // alice's key holds no *_ALL right (the admin's universal rights do not): she grants what she holds.
    ok(await setMember(org, carol, [R.DEVICES_READ, R.APP_INFO]), 'carol member');
    const carolKey = await access.createKey('user', carol, USER_KEY_RIGHTS);
    expectTtsError(await api.get(isDevicesPath(app), as(carolKey)), 403, 7, 'pkg/auth/rights', 'no_application_rights', { uid: app });
    const share = await api.put(`/api/v3/applications/${app}/collaborators`, { collaborator: { ids: orgIds(org), rights: [R.DEVICES_READ] } }, as(aliceKey));
    ok(share, 'share with the organization');
    ok(await api.get(isDevicesPath(app), as(carolKey)), 'carol reads devices');
    const one = await api.get(`/api/v3/applications/${app}/collaborator/organization/${org}`, as(aliceKey));
    ok(one, 'get the organization collaborator');
    expect(one.json).toEqual({ ids: orgIds(org), rights: [R.DEVICES_READ] });
    ok(await api.delete(`/api/v3/applications/${app}/collaborator/organization/${org}`, as(aliceKey)), 'unshare');
    expectTtsError(await api.get(isDevicesPath(app), as(carolKey)), 403, 7, 'pkg/auth/rights', 'no_application_rights', { uid: app });
  });

  it('a member sees the organization’s events on a stream of it, history included, and its memberships on its own stream', async () => {
    const org = await aliceOrg();
    // Member events are visible to who manages members (TTS visibility: SETTINGS_MEMBERS).
    ok(await setMember(org, bob, [R.ORG_INFO, R.ORG_MEMBERS]), 'bob member');
    ok(
      await api.put(orgPath(org), { organization: { ids: { organization_id: org }, name: 'Renamed' }, field_mask: { paths: ['name'] } }, as(aliceKey)),
      'rename',
    );
    // History: what happened before the stream opened.
    const history = await subscribe([orgIds(org)], bobKey, { tail: 10 });
    const update = await nextNamed(history, 'organization.update');
    expect(update.identifiers).toEqual([orgIds(org)]);
    expect(update.data).toMatchObject({ value: ['name'] });
    // Live: alice adds carol; the member event names the organization and the user.
    ok(await setMember(org, carol, [R.ORG_INFO]), 'carol member');
    const added = await nextNamed(history, 'organization.collaborator.update');
    expect(added.identifiers).toEqual([orgIds(org), userIds(carol)]);
    // A user's own stream shows its memberships changing (the event names the user too).
    const own = await subscribe([userIds(bob)], bobKey);
    ok(await setMember(org, bob, [R.ORG_INFO]), 'bob steps down to INFO');
    const changed = await nextNamed(own, 'organization.collaborator.update');
    expect(changed.identifiers).toEqual([orgIds(org), userIds(bob)]);
    expect(changed.data).toMatchObject({ ids: userIds(bob), rights: [R.ORG_INFO] });
    // A stranger may not stream the organization.
    const stranger = freshId('org-stranger');
    await access.createUser(stranger);
    const strangerKey = await access.createKey('user', stranger, USER_KEY_RIGHTS);
    const refused = await EventStream.open(stack.baseUrl, { authorization: `Bearer ${strangerKey.token}`, body: { identifiers: [orgIds(org)] } });
    streams.push(refused);
    expect(refused.status).toBe(403);
  });

  it('organization API keys reach the organization and the applications it collaborates on', async () => {
    const org = await aliceOrg();
    const app = freshId('org-key-app');
    ok(await api.post(`/api/v3/organizations/${org}/applications`, { application: { ids: { application_id: app } } }, as(aliceKey)), 'create app');
    const created = await api.post(`${orgPath(org)}/api-keys`, { name: 'ci', rights: [R.ORG_INFO, R.DEVICES_READ] }, as(aliceKey));
    ok(created, 'create org key');
    const orgKey = { token: created.json.key as string } as CreatedKey;
    ok(await api.get(orgPath(org), as(orgKey)), 'org key reads its organization');
    ok(await api.get(isDevicesPath(app), as(orgKey)), 'org key reads the devices of its application');
    expectTtsError(await api.delete(orgPath(org), as(orgKey)), 403, 7, 'pkg/auth/rights', 'insufficient_organization_rights');
    const keys = await api.get(`${orgPath(org)}/api-keys`, as(aliceKey));
    ok(keys, 'list keys');
    expect(keys.json.api_keys).toHaveLength(1);
    expect(keys.text).not.toContain(orgKey.token.split('.')[2]);
  });

  it('an organization that collaborates cannot be deleted; deleted, it can be restored; purged, its ID is free and its members gone', async () => {
    const org = await aliceOrg();
    const app = freshId('org-del-app');
    ok(await api.post(`/api/v3/organizations/${org}/applications`, { application: { ids: { application_id: app } } }, as(aliceKey)), 'create app');
    ok(await setMember(org, bob, [R.ORG_INFO]), 'bob member');
    expectTtsError(await api.delete(orgPath(org), as(aliceKey)), 400, 9, 'pkg/identityserver', 'organization_has_entities');
    ok(await api.get(orgPath(org), as(aliceKey)), 'still there');
    // The application goes (deleted, then purged by the admin): now the organization may.
    ok(await api.delete(`/api/v3/applications/${app}`, as(aliceKey)), 'delete app');
    ok(await api.delete(`/api/v3/applications/${app}/purge`), 'purge app');
    ok(await api.delete(orgPath(org), as(aliceKey)), 'delete org');
    // Deleted, it is gone for its members (no rights) and not found for the admin.
    expectTtsError(await api.get(orgPath(org), as(aliceKey)), 403, 7, 'pkg/auth/rights', 'no_organization_rights');
    expectTtsError(await api.get(orgPath(org)), 404, 5, 'pkg/identityserver/store', 'organization_not_found');
    ok(await api.post(`${orgPath(org)}/restore`, {}), 'the admin restores');
    ok(await api.get(orgPath(org), as(bobKey)), 'bob is a member again');
    ok(await api.delete(orgPath(org), as(aliceKey)), 'delete again');
    expectTtsError(await api.delete(`${orgPath(org)}/purge`, as(aliceKey)), 403, 7, 'pkg/auth/rights', 'no_admin');
    ok(await api.delete(`${orgPath(org)}/purge`), 'admin purges');
    // The ID is free again, and the old members are gone.
    ok(await api.post(`/api/v3/users/${carol}/organizations`, { organization: { ids: { organization_id: org } } }), 'the ID is taken anew');
    const list = await api.get(members(org));
    ok(list, 'members of the new organization');
    expect(list.json.collaborators).toEqual([{ ids: userIds(carol), rights: ['RIGHT_ALL'] }]);
  });

  it('refuses bad requests in TTS’s shape and changes nothing', async () => {
    const org = await aliceOrg();
    // An ID that is not one, or taken by a user (one namespace of accounts).
    expectValidationError(
      await api.post(`/api/v3/users/${alice}/organizations`, { organization: { ids: { organization_id: 'Bad_ID' } } }, as(aliceKey)),
      'organization_id',
    );
    expectTtsError(
      await api.post(`/api/v3/users/${alice}/organizations`, { organization: { ids: { organization_id: bob } } }, as(aliceKey)),
      409,
      6,
      'pkg/util/store',
      'id_taken',
    );
    // Members: users only, existing ones, known rights, rights the granter holds, one keeps ORGANIZATION_ALL.
    expectTtsError(
      await api.put(members(org), { collaborator: { ids: orgIds(freshId('other')), rights: [R.ORG_INFO] } }, as(aliceKey)),
      400,
      3,
      'pkg/identityserver',
      'nested_organizations',
    );
    expectTtsError(await setMember(org, freshId('nobody'), [R.ORG_INFO]), 404, 5, 'pkg/identityserver/store', 'user_not_found');
    expectValidationError(await setMember(org, bob, ['RIGHT_ORGANIZATION_NOPE']), /rights/);
    expectValidationError(await setMember(org, bob, ['RIGHT_USER_INFO']), 'rights');
    ok(await setMember(org, bob, [R.ORG_INFO, R.ORG_MEMBERS]), 'bob manages members');
    const escalate = await setMember(org, carol, ['RIGHT_ORGANIZATION_DELETE'], bobKey);
    expectTtsError(escalate, 403, 7, 'pkg/auth/rights', 'insufficient_organization_rights');
    // Taking ORGANIZATION_ALL from its last holder (whose key holds every right: the admin's own organization).
    const adminOrg = freshId('org-admin');
    ok(await api.post('/api/v3/users/admin/organizations', { organization: { ids: { organization_id: adminOrg } } }), 'the admin’s organization');
    const stepDown = await api.put(members(adminOrg), { collaborator: { ids: userIds('admin'), rights: [R.ORG_INFO] } });
    expectTtsError(stepDown, 400, 9, 'pkg/identityserver', 'organization_needs_collaborator');
    // Taking rights away that the caller does not hold (alice's key holds no *_ALL).
    expectTtsError(await setMember(org, alice, [R.ORG_INFO]), 403, 7, 'pkg/auth/rights', 'insufficient_organization_rights');
    const list = await api.get(members(org), as(aliceKey));
    ok(list, 'members unchanged');
    // Ordered by ID: `org-alice…` before `org-bob…`.
    expect(list.json.collaborators).toEqual([
      { ids: userIds(alice), rights: ['RIGHT_ALL'] },
      { ids: userIds(bob), rights: [R.ORG_INFO, R.ORG_MEMBERS] },
    ]);
    // Creating under an organization needs its ORGANIZATION_APPLICATIONS_CREATE.
    const byBob = await api.post(`/api/v3/organizations/${org}/applications`, { application: { ids: { application_id: freshId('no-app') } } }, as(bobKey));
    expectTtsError(byBob, 403, 7, 'pkg/auth/rights', 'insufficient_organization_rights');
  });
});
