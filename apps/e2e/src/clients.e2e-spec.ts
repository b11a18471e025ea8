/**
 * OAuth clients (the IS's ClientRegistry) end to end, in both run modes: a user registers a
 * client and gets its secret once (never again: not from Get, List or Update, not in an event,
 * not in a log); Get, List, Update, Delete; TTS's ID rule (400); another user's key learns
 * nothing (403); `client.create|update|delete` reach a stream opened with `client_ids`.
 * A user key holds rights of other kinds only when its own user granted them from a key that
 * holds them, so the users' keys here hold user rights (to register and list clients) and the
 * admin key, which holds every client right, reads and changes the clients.
 * Rules: TTS `client_registry.go`; docs/identity-and-access.md "OAuth clients".
 */
import { type EventJson, type Right, rightsOfKind } from '@lorawan/api';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Access, bearer, type CreatedKey, expectHttp, freshId, secretForms } from './access';
import { EventStream } from './event-stream';
import { Api, type ApiResponse, expectTtsError, expectValidationError, sleep } from './http-client';

/** The most verbose logging, so that a secret written to any log would show. */
const ENV = { LOG_LEVEL: 'verbose' };

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'events'], env: ENV })],
  ['embedded', () => startEmbeddedStack({ env: ENV })],
];

const SECRET = /^[A-Z2-7]{52}$/;
/** Every right a key on a user can hold when the admin creates it. */
const USER_RIGHTS: Right[] = rightsOfKind('user').filter((r) => !r.endsWith('_ALL'));

describe.each(MODES)('Identity Server: OAuth clients (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const access = new Access(api);
  const owner = freshId('cli-owner');
  const stranger = freshId('cli-stranger');
  let ownerKey: CreatedKey;
  let strangerKey: CreatedKey;
  const secrets: string[] = [];
  const streams: EventStream[] = [];

  const ok = (res: ApiResponse, what: string) => expectHttp(res, 200, `${mode}: ${what}`);
  const clientPath = (id: string) => `/api/v3/clients/${id}`;

  async function createClient(id: string, client: Record<string, unknown> = {}, as = bearer(ownerKey.token)): Promise<ApiResponse> {
    const res = await api.post(`/api/v3/users/${owner}/clients`, { client: { ids: { client_id: id }, ...client } }, as);
    ok(res, `create client ${id}`);
    if (typeof res.json?.secret === 'string') secrets.push(res.json.secret);
    return res;
  }

  async function openStream(clientId: string, token: string): Promise<EventStream> {
    const s = await EventStream.open(stack.baseUrl, { authorization: `Bearer ${token}`, body: { identifiers: [{ client_ids: { client_id: clientId } }] } });
    streams.push(s);
    return s;
  }

  async function subscribe(clientId: string, token: string): Promise<EventStream> {
    const s = await openStream(clientId, token);
    if (s.status !== 200) throw new Error(`${mode}: stream on client ${clientId}: HTTP ${s.status}: ${s.text.slice(0, 2000)}`);
    expect((await s.nextEvent()).name).toBe('events.stream.start');
    return s;
  }

  beforeAll(async () => {
    stack = await start();
    await access.createUser(owner);
    await access.createUser(stranger);
    ownerKey = await access.createKey('user', owner, ['RIGHT_USER_INFO', 'RIGHT_USER_CLIENTS_CREATE', 'RIGHT_USER_CLIENTS_LIST']);
    strangerKey = await access.createKey('user', stranger, USER_RIGHTS);
  });

  afterAll(async () => {
    for (const s of streams) s.close();
    await stack?.stop();
  });

  it('a user registers a client: the secret is answered once; Get, List and Update never show it, a Get asking for it is refused', async () => {
    const id = freshId('cli');
    const created = await createClient(id, { name: 'My app', redirect_uris: ['https://app.example.com/oauth/callback'], grants: ['GRANT_AUTHORIZATION_CODE'] });
    expect(created.json).toMatchObject({
      ids: { client_id: id },
      name: 'My app',
      redirect_uris: ['https://app.example.com/oauth/callback'],
      grants: ['GRANT_AUTHORIZATION_CODE'],
      state: 'STATE_REQUESTED',
      state_description: 'admin approval required',
      administrative_contact: { user_ids: { user_id: owner } },
      technical_contact: { user_ids: { user_id: owner } },
    });
    const secret = created.json.secret as string;
    expect(secret).toMatch(SECRET);

    const get = await api.get(`${clientPath(id)}?field_mask=name,description,redirect_uris,state,grants,rights`);
    ok(get, 'get');
    expect(get.json).toMatchObject({ ids: { client_id: id }, name: 'My app', state: 'STATE_REQUESTED' });
    expect(get.json).not.toHaveProperty('secret');
    expect(get.text).not.toContain(secret);
    expectTtsError(await api.get(`${clientPath(id)}?field_mask=secret`), 400, 3, 'pkg/rpcmiddleware/validator', 'field_mask_paths');

    // The owner lists its clients; its key holds no RIGHT_CLIENT_INFO, so it sees identifiers and times only (TTS PublicSafe).
    const list = await api.get(`/api/v3/users/${owner}/clients?field_mask=name`, bearer(ownerKey.token));
    ok(list, 'list');
    expect(list.json.clients).toEqual([{ ids: { client_id: id }, created_at: expect.any(String), updated_at: expect.any(String) }]);
    const all = await api.get('/api/v3/clients?field_mask=name,redirect_uris&limit=1000');
    ok(all, 'admin lists');
    for (const res of [list, all]) expect(res.text).not.toContain(secret);

    const upd = await api.put(clientPath(id), { client: { ids: { client_id: id }, secret: 'a-new-secret-1' }, field_mask: { paths: ['secret'] } });
    ok(upd, 'update the secret');
    expect(upd.json).not.toHaveProperty('secret');
    expect(upd.text).not.toContain('a-new-secret-1');
    secrets.push('a-new-secret-1');
  });

  it('get, list (both bindings, ordered, paginated), update with a field mask, approve, delete', async () => {
    const [a, b] = [freshId('cli-a'), freshId('cli-b')];
    // The admin registers clients for the owner.
    await createClient(a, { name: 'Bravo' }, {});
    await createClient(b, { name: 'Alpha' }, {});

    const page1 = await api.get(`/api/v3/users/${owner}/clients?field_mask=name&order=name&limit=1`);
    ok(page1, 'list page 1');
    expect(Number(page1.headers.get('x-total-count'))).toBeGreaterThanOrEqual(3);
    expect(page1.json.clients).toEqual([expect.objectContaining({ ids: { client_id: b }, name: 'Alpha' })]);
    const every = await api.get('/api/v3/clients?field_mask=name&limit=1000');
    ok(every, 'list every client');
    const names = new Map((every.json.clients as Array<{ ids: { client_id: string }; name?: string }>).map((c) => [c.ids.client_id, c.name]));
    expect(names.get(a)).toBe('Bravo');
    expect(names.get(b)).toBe('Alpha');

    const upd = await api.put(clientPath(a), {
      client: { ids: { client_id: a }, name: 'Charlie', description: 'not in the mask' },
      field_mask: { paths: ['name'] },
    });
    ok(upd, 'update');
    expect(upd.json).toMatchObject({ ids: { client_id: a }, name: 'Charlie' });
    expect(upd.json).not.toHaveProperty('description');
    const after = await api.get(`${clientPath(a)}?field_mask=name,description`);
    expect(after.json.name).toBe('Charlie');
    expect(after.json).not.toHaveProperty('description');

    const approved = await api.put(clientPath(a), { client: { ids: { client_id: a }, state: 'STATE_APPROVED' }, field_mask: { paths: ['state'] } });
    ok(approved, 'admin approves');
    expect(approved.json.state).toBe('STATE_APPROVED');

    const del = await api.delete(clientPath(a));
    ok(del, 'delete');
    expect(del.json).toEqual({});
    expectTtsError(await api.get(clientPath(a)), 404, 5, 'pkg/identityserver/store', 'client_not_found', { client_id: a });
    const listed = await api.get('/api/v3/clients?limit=1000');
    expect((listed.json.clients as Array<{ ids: { client_id: string } }>).map((c) => c.ids.client_id)).not.toContain(a);
  });

  it("refuses a client ID outside TTS's pattern with 400", async () => {
    for (const bad of ['Bad_ID', 'ab', '-abc', 'a'.repeat(37)]) {
      expectValidationError(await api.post(`/api/v3/users/${owner}/clients`, { client: { ids: { client_id: bad } } }, bearer(ownerKey.token)), /client_id$/);
      expectValidationError(await api.get(clientPath(bad)), /client_id$/);
    }
  });

  it("another user's key has no rights on the client: 403 on Get, Update, Delete, its stream; the client stays out of its List", async () => {
    const id = freshId('cli-priv');
    await createClient(id);
    const as = bearer(strangerKey.token);
    expectTtsError(await api.get(clientPath(id), as), 403, 7, 'pkg/auth/rights', 'no_client_rights', { uid: id });
    const rename = { client: { ids: { client_id: id }, name: 'mine now' }, field_mask: { paths: ['name'] } };
    expectTtsError(await api.put(clientPath(id), rename, as), 403, 7, 'pkg/auth/rights', 'no_client_rights', { uid: id });
    expectTtsError(await api.delete(clientPath(id), as), 403, 7, 'pkg/auth/rights', 'no_client_rights', { uid: id });
    const foreign = { client: { ids: { client_id: freshId('cli-x') } } };
    expectTtsError(await api.post(`/api/v3/users/${owner}/clients`, foreign, as), 403, 7, 'pkg/auth/rights', 'no_user_rights', { uid: owner });
    const s = await openStream(id, strangerKey.token);
    expect(s.status).toBe(403);
    expect(s.text).toContain('no_client_rights');
    const listed = await api.get('/api/v3/clients', as);
    ok(listed, 'stranger lists');
    expect(listed.text).not.toContain(id);
    const still = await api.get(`${clientPath(id)}?field_mask=name`);
    ok(still, 'still there');
    expect(still.json).not.toHaveProperty('name', 'mine now');
  });

  it('client.create, client.update (data: the paths) and client.delete reach streams opened with client_ids, without the secret', async () => {
    const id = freshId('cli-ev');
    // The admin (every client right) may watch a client that does not exist yet, and one that does.
    const early = await subscribe(id, stack.adminKey);
    const created = await createClient(id, { name: 'Evented' });
    const later = await subscribe(id, stack.adminKey);
    ok(await api.put(clientPath(id), { client: { ids: { client_id: id }, name: 'Renamed' }, field_mask: { paths: ['name'] } }), 'update');
    ok(await api.delete(clientPath(id)), 'delete');

    const clientIds = [{ client_ids: { client_id: id } }];
    const events = await early.nextEvents(3);
    expect(events.map((e) => e.name)).toEqual(['client.create', 'client.update', 'client.delete']);
    for (const e of events) expect(e.identifiers).toEqual(clientIds);
    expect(events[0].data).toBeUndefined();
    expect(events[1].data).toEqual({ '@type': 'type.googleapis.com/google.protobuf.Value', value: ['name'] });
    expect(events[0].correlation_ids).toEqual(expect.arrayContaining([expect.stringMatching(/^rpc:\/ttn\.lorawan\.v3\.ClientRegistry\/Create:/)]));
    const seen: EventJson[] = await later.nextEvents(2);
    expect(seen.map((e) => e.name)).toEqual(['client.update', 'client.delete']);
    const secret = created.json.secret as string;
    expect(secret).toMatch(SECRET);
    for (const e of [...events, ...seen]) expect(JSON.stringify(e)).not.toContain(secret);
  });

  it('collaborators of a client (ClientAccess): a user or an organization, client.collaborator.update|delete on the client’s stream', async () => {
    const id = freshId('cli-co');
    await createClient(id, { name: 'Shared' }, {});
    const org = freshId('cli-org');
    ok(await api.post(`/api/v3/users/${stranger}/organizations`, { organization: { ids: { organization_id: org } } }), 'an organization of the stranger');
    const stream = await subscribe(id, stack.adminKey);
    const collaborators = `${clientPath(id)}/collaborators`;
    ok(await api.put(collaborators, { collaborator: { ids: { user_ids: { user_id: stranger } }, rights: ['RIGHT_CLIENT_INFO'] } }), 'the stranger');
    ok(
      await api.put(collaborators, { collaborator: { ids: { organization_ids: { organization_id: org } }, rights: ['RIGHT_CLIENT_INFO'] } }),
      'the organization',
    );
    const list = await api.get(collaborators);
    ok(list, 'list');
    expect(list.json.collaborators).toEqual(
      expect.arrayContaining([
        { ids: { user_ids: { user_id: owner } }, rights: ['RIGHT_ALL'] },
        { ids: { user_ids: { user_id: stranger } }, rights: ['RIGHT_CLIENT_INFO'] },
        { ids: { organization_ids: { organization_id: org } }, rights: ['RIGHT_CLIENT_INFO'] },
      ]),
    );
    expect(list.headers.get('x-total-count')).toBe('3');
    const one = await api.get(`${clientPath(id)}/collaborator/organization/${org}`);
    ok(one, 'get the organization');
    expect(one.json).toEqual({ ids: { organization_ids: { organization_id: org } }, rights: ['RIGHT_CLIENT_INFO'] });
    ok(await api.delete(`${clientPath(id)}/collaborators/organization/${org}`), 'delete the organization');
    ok(await api.delete(`${clientPath(id)}/collaborators/user/${stranger}`), 'delete the stranger');
    expectTtsError(await api.delete(`${clientPath(id)}/collaborators/user/${stranger}`), 404, 5, 'pkg/identityserver/store', 'membership_not_found');
    const events = await stream.nextEvents(4);
    expect(events.map((e) => e.name)).toEqual([
      'client.collaborator.update',
      'client.collaborator.update',
      'client.collaborator.delete',
      'client.collaborator.delete',
    ]);
    expect(events[1].identifiers).toEqual([{ client_ids: { client_id: id } }, { organization_ids: { organization_id: org } }]);
  });

  it('no client secret reaches a log', async () => {
    await sleep(300);
    const logs = stack.logs();
    expect(logs.length).toBeGreaterThan(0);
    expect(secrets.length).toBeGreaterThan(0);
    for (const s of secrets) expect((SECRET.test(s) ? secretForms(s) : [s]).filter((f) => logs.includes(f))).toEqual([]);
  });
});
