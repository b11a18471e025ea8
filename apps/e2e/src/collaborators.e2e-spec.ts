/**
 * Collaborators of applications and gateways end to end, in both run modes: a user made a
 * collaborator gets exactly the rights it is given and loses them at once when removed (Delete
 * or an empty Set, despite the gateway's rights cache); a collaborator grants only rights it holds;
 * the last collaborator with `*_ALL` stays; List, Get and the errors of bad requests; the
 * `<entity>.collaborator.update|delete` events on the entity's stream.
 * Rules: TTS `application_access.go`, `gateway_access.go`; docs/identity-and-access.md "Collaborators".
 */
import { ALL_ADMIN_RIGHTS, type EventJson, type Right, rightsOfKind } from '@lorawan/api';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Access, bearer, type CreatedKey, entityPath, expectHttp, freshId, missingOf, randomEui } from './access';
import { isDevicesPath } from './devices';
import { EventStream } from './event-stream';
import { Api, type ApiResponse, expectTtsError, expectValidationError } from './http-client';

/** A long cache, so that only the IS's invalidation can make a changed collaborator take effect at once. */
const ENV = { AUTH_CACHE_TTL_MS: '60000' };

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'events'], env: ENV })],
  ['embedded', () => startEmbeddedStack({ env: ENV })],
];

const R = {
  APP_INFO: 'RIGHT_APPLICATION_INFO',
  APP_COLLABORATORS: 'RIGHT_APPLICATION_SETTINGS_COLLABORATORS',
  DEVICES_READ: 'RIGHT_APPLICATION_DEVICES_READ',
  DEVICES_WRITE: 'RIGHT_APPLICATION_DEVICES_WRITE',
  GTW_INFO: 'RIGHT_GATEWAY_INFO',
} as const satisfies Record<string, Right>;

const userIds = (user_id: string) => ({ user_ids: { user_id } });

/**
 * The rights the admin may put on another user's key (TTS: its universal rights): every user,
 * application and gateway right but the `*_ALL` ones, device keys and gateway secrets. The key
 * still reaches only what its user collaborates on.
 */
const USER_KEY_RIGHTS = (['user', 'application', 'gateway'] as const).flatMap((kind) => rightsOfKind(kind).filter((r) => ALL_ADMIN_RIGHTS.includes(r)));

describe.each(MODES)('Identity Server: collaborators (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const access = new Access(api);
  const [alice, bob, carol] = [freshId('co-alice'), freshId('co-bob'), freshId('co-carol')];
  let aliceKey: CreatedKey;
  let bobKey: CreatedKey;
  const streams: EventStream[] = [];

  const ok = (res: ApiResponse, what: string) => expectHttp(res, 200, `${mode}: ${what}`);
  const as = (key: CreatedKey) => bearer(key.token);
  const collaborators = (kind: 'applications' | 'gateways', id: string) => `/api/v3/${kind}/${id}/collaborators`;
  const collaborator = (kind: 'applications' | 'gateways', id: string, user: string) => `/api/v3/${kind}/${id}/collaborator/user/${user}`;
  /** TTS deletes an application's collaborator under `collaborator/`, a gateway's under `collaborators/`. */
  const deletePath = (kind: 'applications' | 'gateways', id: string, user: string) =>
    `/api/v3/${kind}/${id}/${kind === 'applications' ? 'collaborator' : 'collaborators'}/user/${user}`;
  const setApp = (app: string, user: string, rights: string[], key = aliceKey) =>
    api.put(collaborators('applications', app), { collaborator: { ids: userIds(user), rights } }, as(key));

  async function aliceApp(): Promise<string> {
    const app = freshId('co-app');
    await access.createApplication(app, alice, as(aliceKey));
    return app;
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

  it('a collaborator holds exactly the rights it is given, and loses them at once when deleted', async () => {
    const app = await aliceApp();
    // Refused first, so that the gateway has the refusal in its cache.
    expectTtsError(await api.get(isDevicesPath(app), as(bobKey)), 403, 7, 'pkg/auth/rights', 'no_application_rights', { uid: app });

    const set = await setApp(app, bob, [R.DEVICES_READ]);
    ok(set, 'add bob');
    expect(set.json).toEqual({});
    ok(await api.get(isDevicesPath(app), as(bobKey)), 'bob lists the devices');
    const info = await api.get(entityPath('application', app), as(bobKey));
    expectTtsError(info, 403, 7, 'pkg/auth/rights', 'insufficient_application_rights', { uid: app });
    expect(missingOf(info)).toEqual([R.APP_INFO]);

    const got = await api.get(collaborator('applications', app, bob), as(aliceKey));
    ok(got, 'get bob');
    expect(got.json).toEqual({ ids: userIds(bob), rights: [R.DEVICES_READ] });

    const del = await api.delete(collaborator('applications', app, bob), as(aliceKey));
    ok(del, 'delete bob');
    expect(del.json).toEqual({});
    expectTtsError(await api.get(isDevicesPath(app), as(bobKey)), 403, 7, 'pkg/auth/rights', 'no_application_rights', { uid: app });
    expectTtsError(await api.get(collaborator('applications', app, bob), as(aliceKey)), 404, 5, 'pkg/identityserver/store', 'membership_not_found', {
      account_id: bob,
    });
  });

  it('an empty Set removes the collaborator, with the same immediate effect (TTS)', async () => {
    const app = await aliceApp();
    ok(await setApp(app, bob, [R.DEVICES_READ, R.DEVICES_WRITE]), 'add bob');
    ok(await api.get(isDevicesPath(app), as(bobKey)), 'bob lists the devices');
    ok(await setApp(app, bob, [R.DEVICES_WRITE]), 'change bob’s rights');
    expectTtsError(await api.get(isDevicesPath(app), as(bobKey)), 403, 7, 'pkg/auth/rights', 'insufficient_application_rights', { uid: app });
    ok(await setApp(app, bob, [R.DEVICES_READ]), 'change them back');
    ok(await api.get(isDevicesPath(app), as(bobKey)), 'bob lists the devices again');
    ok(await setApp(app, bob, []), 'remove bob');
    expectTtsError(await api.get(isDevicesPath(app), as(bobKey)), 403, 7, 'pkg/auth/rights', 'no_application_rights', { uid: app });
  });

  it('lists the collaborators with X-Total-Count; without the right to manage them, identifiers only', async () => {
    const app = await aliceApp();
    ok(await setApp(app, bob, [R.DEVICES_READ]), 'add bob');
    ok(await setApp(app, carol, [R.APP_INFO]), 'add carol');
    const list = await api.get(collaborators('applications', app), as(aliceKey));
    ok(list, 'list');
    expect(list.headers.get('x-total-count')).toBe('3');
    expect(list.json.collaborators).toEqual(
      expect.arrayContaining([
        { ids: userIds(alice), rights: ['RIGHT_ALL'] },
        { ids: userIds(bob), rights: [R.DEVICES_READ] },
        { ids: userIds(carol), rights: [R.APP_INFO] },
      ]),
    );
    const paged = await api.get(`${collaborators('applications', app)}?limit=2&page=2&order=-id`, as(aliceKey));
    ok(paged, 'list page 2');
    expect(paged.headers.get('x-total-count')).toBe('3');
    expect(paged.json.collaborators).toHaveLength(1);
    const byBob = await api.get(collaborators('applications', app), as(bobKey));
    ok(byBob, 'bob lists');
    expect(byBob.json.collaborators).toHaveLength(3);
    for (const c of byBob.json.collaborators) expect(Object.keys(c)).toEqual(['ids']);
    expectTtsError(await api.get(collaborator('applications', app, carol), as(bobKey)), 403, 7, 'pkg/auth/rights', 'insufficient_application_rights');
  });

  it('a collaborator grants and takes away only rights it holds; a failed request stores nothing', async () => {
    const app = await aliceApp();
    ok(await setApp(app, bob, [R.APP_COLLABORATORS, R.DEVICES_READ]), 'bob manages collaborators');
    const escalate = await setApp(app, carol, [R.DEVICES_READ, R.DEVICES_WRITE], bobKey);
    expectTtsError(escalate, 403, 7, 'pkg/auth/rights', 'insufficient_application_rights', { uid: app });
    expect(missingOf(escalate)).toEqual([R.DEVICES_WRITE]);
    expectTtsError(await api.get(collaborator('applications', app, carol), as(aliceKey)), 404, 5, 'pkg/identityserver/store', 'membership_not_found');
    ok(await setApp(app, carol, [R.DEVICES_READ], bobKey), 'bob adds carol with a right he holds');
    // Taking RIGHT_ALL's rights away from alice would take rights bob does not hold.
    expectTtsError(await setApp(app, alice, [R.DEVICES_READ], bobKey), 403, 7, 'pkg/auth/rights', 'insufficient_application_rights', { uid: app });
    // Nor can bob give himself more.
    expectTtsError(
      await setApp(app, bob, [R.APP_COLLABORATORS, R.DEVICES_READ, R.DEVICES_WRITE], bobKey),
      403,
      7,
      'pkg/auth/rights',
      'insufficient_application_rights',
    );
    const list = await api.get(collaborators('applications', app), as(aliceKey));
    expect(list.json.collaborators).toEqual(
      expect.arrayContaining([
        { ids: userIds(alice), rights: ['RIGHT_ALL'] },
        { ids: userIds(bob), rights: [R.DEVICES_READ, R.APP_COLLABORATORS].sort() },
        { ids: userIds(carol), rights: [R.DEVICES_READ] },
      ]),
    );
  });

  it('the last collaborator with RIGHT_APPLICATION_ALL stays; a contact cannot be deleted', async () => {
    const app = await aliceApp();
    expectTtsError(await setApp(app, alice, []), 400, 9, 'pkg/identityserver', 'application_needs_collaborator');
    // Alice's key lacks the device-key rights that RIGHT_ALL holds: she may not take them away from anyone.
    expectTtsError(await setApp(app, alice, [R.APP_INFO]), 403, 7, 'pkg/auth/rights', 'insufficient_application_rights', { uid: app });
    expectTtsError(await api.delete(collaborator('applications', app, alice), as(aliceKey)), 400, 9, 'pkg/identityserver', 'collaborator_is_contact', {
      collaborator_id: alice,
    });
    const got = await api.get(collaborator('applications', app, alice), as(aliceKey));
    ok(got, 'alice is still there');
    expect(got.json.rights).toEqual(['RIGHT_ALL']);
    ok(await api.get(entityPath('application', app), as(aliceKey)), 'alice still reads the application');

    // The admin's own application, with the admin key (RIGHT_ALL): it holds every right it would take away.
    const own = freshId('co-admin-app');
    await access.createApplication(own);
    const admin = await api.get(collaborators('applications', own));
    const adminId = admin.json.collaborators[0].ids.user_ids.user_id as string;
    const downgrade = await api.put(collaborators('applications', own), { collaborator: { ids: userIds(adminId), rights: [R.APP_INFO] } });
    expectTtsError(downgrade, 400, 9, 'pkg/identityserver', 'application_needs_collaborator');
    ok(await api.put(collaborators('applications', own), { collaborator: { ids: userIds(bob), rights: ['RIGHT_APPLICATION_ALL'] } }), 'bob gets all rights');
    ok(await api.put(collaborators('applications', own), { collaborator: { ids: userIds(adminId), rights: [R.APP_INFO] } }), 'now the admin may step down');
  });

  it('refuses an unknown user or organization (404), unknown or foreign rights (400)', async () => {
    const app = await aliceApp();
    expectTtsError(await setApp(app, freshId('nobody'), [R.APP_INFO]), 404, 5, 'pkg/identityserver/store', 'user_not_found');
    expectValidationError(await setApp(app, bob, ['RIGHT_APPLICATION_NOPE']), /rights/);
    expectValidationError(await setApp(app, bob, [R.GTW_INFO]), 'rights');
    const org = { collaborator: { ids: { organization_ids: { organization_id: 'some-org' } }, rights: [R.APP_INFO] } };
    expectTtsError(await api.put(collaborators('applications', app), org, as(aliceKey)), 404, 5, 'pkg/identityserver/store', 'organization_not_found');
    const orgGet = await api.get(`/api/v3/applications/${app}/collaborator/organization/some-org`, as(aliceKey));
    expectTtsError(orgGet, 404, 5, 'pkg/identityserver/store', 'membership_not_found');
    const list = await api.get(collaborators('applications', app), as(aliceKey));
    expect(list.headers.get('x-total-count')).toBe('1');
  });

  it('application.collaborator.update and .delete reach the application’s stream', async () => {
    const app = await aliceApp();
    const s = await EventStream.open(stack.baseUrl, {
      authorization: `Bearer ${aliceKey.token}`,
      body: { identifiers: [{ application_ids: { application_id: app } }] },
    });
    streams.push(s);
    expect(s.status).toBe(200);
    expect((await s.nextEvent()).name).toBe('events.stream.start');

    const set = await setApp(app, bob, [R.DEVICES_READ]);
    ok(set, 'add bob');
    const del = await api.delete(collaborator('applications', app, bob), as(aliceKey));
    ok(del, 'delete bob');
    const [update, remove] = (await s.nextEvents(2)) as [EventJson, EventJson];
    const identifiers = [{ application_ids: { application_id: app } }, { user_ids: { user_id: bob } }];
    expect(update).toMatchObject({
      name: 'application.collaborator.update',
      identifiers,
      data: { '@type': 'type.googleapis.com/ttn.lorawan.v3.Collaborator', ids: userIds(bob), rights: [R.DEVICES_READ] },
      visibility: { rights: [R.APP_COLLABORATORS, 'RIGHT_USER_APPLICATIONS_LIST'] },
    });
    expect(update.correlation_ids).toContain(`rpc:/ttn.lorawan.v3.ApplicationAccess/SetCollaborator:${set.headers.get('x-request-id')}`);
    expect(remove).toMatchObject({ name: 'application.collaborator.delete', identifiers });
    expect(remove).not.toHaveProperty('data');
    expect(remove.correlation_ids).toContain(`rpc:/ttn.lorawan.v3.ApplicationAccess/DeleteCollaborator:${del.headers.get('x-request-id')}`);
  });

  it('gateways: a collaborator’s rights take effect and end at once; the last RIGHT_GATEWAY_ALL stays', async () => {
    const gtw = freshId('co-gtw');
    await access.createGateway(gtw, randomEui(), alice, as(aliceKey));
    expectTtsError(await api.get(entityPath('gateway', gtw), as(bobKey)), 403, 7, 'pkg/auth/rights', 'no_gateway_rights', { uid: gtw });
    ok(await api.put(collaborators('gateways', gtw), { collaborator: { ids: userIds(bob), rights: [R.GTW_INFO] } }, as(aliceKey)), 'add bob');
    ok(await api.get(entityPath('gateway', gtw), as(bobKey)), 'bob reads the gateway');
    const list = await api.get(collaborators('gateways', gtw), as(aliceKey));
    expect(list.headers.get('x-total-count')).toBe('2');
    ok(await api.delete(deletePath('gateways', gtw, bob), as(aliceKey)), 'delete bob');
    expectTtsError(await api.get(entityPath('gateway', gtw), as(bobKey)), 403, 7, 'pkg/auth/rights', 'no_gateway_rights', { uid: gtw });
    const last = await api.put(collaborators('gateways', gtw), { collaborator: { ids: userIds(alice), rights: [] } }, as(aliceKey));
    expectTtsError(last, 400, 9, 'pkg/identityserver', 'gateway_needs_collaborator');
  });
});
