/**
 * Tenant safety, finding 3 of issue 29, in both run modes: nobody makes another tenant's
 * organization a collaborator of their application, gateway or client without
 * `RIGHT_ORGANIZATION_ADD_AS_COLLABORATOR` on it (the probe attached one and so made it
 * undeletable: `organization_has_entities`); who holds that right on the organization takes it off
 * an entity again without any right there (the probe's owner got 403), and can then delete it.
 * Rules: docs/identity-and-access.md "Organizations" (collaborators); TTS defines the right for this.
 */
import { ALL_ADMIN_RIGHTS, type Right, rightsOfKind } from '@lorawan/api';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Access, bearer, type CreatedKey, expectHttp, freshId, missingOf, randomEui } from '../access';
import { Api, type ApiResponse, expectTtsError } from '../http-client';

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is'] })],
  ['embedded', () => startEmbeddedStack()],
];

const CONSENT: Right = 'RIGHT_ORGANIZATION_ADD_AS_COLLABORATOR';
/** What the admin may put on a user's key: every right of these kinds but `*_ALL`, device keys and gateway secrets. */
const USER_KEY_RIGHTS = (['user', 'application', 'gateway', 'organization', 'client'] as const).flatMap((kind) =>
  rightsOfKind(kind).filter((r) => ALL_ADMIN_RIGHTS.includes(r)),
);
const orgIds = (organization_id: string) => ({ organization_ids: { organization_id } });
const userIds = (user_id: string) => ({ user_ids: { user_id } });

/** The entities an organization can collaborate on: where their collaborators are, and a right to grant there. */
const SHARED = [
  { collection: 'applications', deleteSegment: 'collaborator', right: 'RIGHT_APPLICATION_INFO', manage: 'RIGHT_APPLICATION_SETTINGS_COLLABORATORS' },
  { collection: 'gateways', deleteSegment: 'collaborators', right: 'RIGHT_GATEWAY_INFO', manage: 'RIGHT_GATEWAY_SETTINGS_COLLABORATORS' },
  { collection: 'clients', deleteSegment: 'collaborators', right: 'RIGHT_CLIENT_INFO', manage: 'RIGHT_CLIENT_SETTINGS_COLLABORATORS' },
] as const;
type Shared = (typeof SHARED)[number];

describe.each(MODES)('tenant safety: an organization collaborates only with its consent (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const access = new Access(api);
  // mallory: another tenant; olivia: owner of the organization; mia: its member without the consent right.
  const [mallory, olivia, mia] = [freshId('ts-mallory'), freshId('ts-olivia'), freshId('ts-mia')];
  const keys: Record<string, CreatedKey> = {};
  const as = (user: string) => bearer(keys[user].token);
  const ok = (res: ApiResponse, what: string) => expectHttp(res, 200, `${mode}: ${what}`);

  /** An application, gateway and client of `owner`, by collection. */
  async function entitiesOf(owner: string): Promise<Record<Shared['collection'], string>> {
    const app = freshId('ts-app');
    const gtw = freshId('ts-gtw');
    const cli = freshId('ts-cli');
    await access.createApplication(app, owner, as(owner));
    await access.createGateway(gtw, randomEui(), owner, as(owner));
    ok(await api.post(`/api/v3/users/${owner}/clients`, { client: { ids: { client_id: cli } } }, as(owner)), `create client ${cli}`);
    return { applications: app, gateways: gtw, clients: cli };
  }

  async function oliviasOrganization(): Promise<string> {
    const org = freshId('ts-org');
    await access.createOrganization(org, olivia, as(olivia));
    return org;
  }

  const share = (s: Shared, id: string, org: string, who: string, rights: string[] = [s.right]) =>
    api.put(`/api/v3/${s.collection}/${id}/collaborators`, { collaborator: { ids: orgIds(org), rights } }, as(who));
  const unshare = (s: Shared, id: string, org: string, who: string) =>
    api.delete(`/api/v3/${s.collection}/${id}/${s.deleteSegment}/organization/${org}`, as(who));

  beforeAll(async () => {
    stack = await start();
    for (const user of [mallory, olivia, mia]) {
      await access.createUser(user);
      keys[user] = await access.createKey('user', user, USER_KEY_RIGHTS);
    }
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('another tenant cannot make an organization a collaborator of its application, gateway or client (403 no_organization_rights)', async () => {
    const org = await oliviasOrganization();
    const own = await entitiesOf(mallory);
    for (const s of SHARED) {
      expectTtsError(await share(s, own[s.collection], org, mallory), 403, 7, 'pkg/auth/rights', 'no_organization_rights', { uid: org });
      const listed = await api.get(`/api/v3/${s.collection}/${own[s.collection]}/collaborators`, as(mallory));
      ok(listed, `list the collaborators of ${s.collection} ${own[s.collection]}`);
      expect(JSON.stringify(listed.json)).not.toContain(org);
    }
    // The organization collaborates on nothing, so its owner can delete it.
    ok(await api.delete(`/api/v3/organizations/${org}`, as(olivia)), 'delete the organization');
  });

  it('a member of the organization needs the consent right, on its membership and on its key', async () => {
    const org = await oliviasOrganization();
    const own = await entitiesOf(mia);
    ok(
      await api.put(`/api/v3/organizations/${org}/collaborators`, { collaborator: { ids: userIds(mia), rights: ['RIGHT_ORGANIZATION_INFO'] } }, as(olivia)),
      'mia joins',
    );
    for (const s of SHARED) {
      const refused = await share(s, own[s.collection], org, mia);
      expectTtsError(refused, 403, 7, 'pkg/auth/rights', 'insufficient_organization_rights', { uid: org });
      expect(missingOf(refused)).toEqual([CONSENT]);
    }
    const withConsent = ['RIGHT_ORGANIZATION_INFO', CONSENT];
    ok(
      await api.put(`/api/v3/organizations/${org}/collaborators`, { collaborator: { ids: userIds(mia), rights: withConsent } }, as(olivia)),
      'mia may consent',
    );
    const keyWithout = await access.createKey(
      'user',
      mia,
      USER_KEY_RIGHTS.filter((r) => r !== CONSENT),
    );
    const byKeyWithout = await api.put(
      `/api/v3/applications/${own.applications}/collaborators`,
      { collaborator: { ids: orgIds(org), rights: [SHARED[0].right] } },
      bearer(keyWithout.token),
    );
    expectTtsError(byKeyWithout, 403, 7, 'pkg/auth/rights', 'insufficient_organization_rights', { uid: org });
    expect(missingOf(byKeyWithout)).toEqual([CONSENT]);
    for (const s of SHARED) ok(await share(s, own[s.collection], org, mia), `mia shares ${s.collection} with the organization`);
  });

  it('who holds the consent right on the organization takes it off an entity it has no right on, and can then delete it', async () => {
    const org = await oliviasOrganization();
    const own = await entitiesOf(mallory);
    for (const s of SHARED) {
      const id = own[s.collection];
      // mallory lets olivia manage the collaborators; she shares with her organization (consenting); mallory drops her.
      ok(
        await api.put(`/api/v3/${s.collection}/${id}/collaborators`, { collaborator: { ids: userIds(olivia), rights: [s.right, s.manage] } }, as(mallory)),
        `olivia collaborates on ${s.collection} ${id}`,
      );
      ok(await share(s, id, org, olivia), `olivia shares ${s.collection} ${id} with her organization`);
      ok(await api.delete(`/api/v3/${s.collection}/${id}/${s.deleteSegment}/user/${olivia}`, as(mallory)), `mallory drops olivia from ${id}`);
    }
    // Still attached: the organization cannot be deleted.
    expectTtsError(await api.delete(`/api/v3/organizations/${org}`, as(olivia)), 400, 9, 'pkg/identityserver', 'organization_has_entities');
    // A member without the consent right may not take it off; neither may a stranger.
    ok(
      await api.put(`/api/v3/organizations/${org}/collaborators`, { collaborator: { ids: userIds(mia), rights: ['RIGHT_ORGANIZATION_INFO'] } }, as(olivia)),
      'mia joins',
    );
    expectTtsError(await unshare(SHARED[0], own.applications, org, mia), 403, 7, 'pkg/auth/rights', 'no_application_rights', { uid: own.applications });
    for (const s of SHARED) {
      // The entity's own manager still removes an organization without its consent (mallory, on the gateway).
      const who = s.collection === 'gateways' ? mallory : olivia;
      ok(await unshare(s, own[s.collection], org, who), `${who} takes the organization off ${s.collection} ${own[s.collection]}`);
      const listed = await api.get(`/api/v3/${s.collection}/${own[s.collection]}/collaborators`, as(mallory));
      expect(JSON.stringify(listed.json)).not.toContain(org);
    }
    ok(await api.delete(`/api/v3/organizations/${org}`, as(olivia)), 'delete the organization');
  });
});
