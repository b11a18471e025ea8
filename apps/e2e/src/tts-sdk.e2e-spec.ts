/**
 * The TTS JavaScript SDK (`ttn-lw` 3.8.1, as published, unchanged) against the stack, in both run
 * modes: its `Organizations` (create, get, list, update, rights, delete), `Organizations.Collaborators`
 * (the members), `Organizations.ApiKeys`, `Applications.create` under a user and under an
 * organization, and `Applications.Collaborators` with a user and with an organization. Every call
 * goes through the SDK; only the users and their first keys are made with the suite's helpers.
 * Each answer is checked against what TTS answers (`organization_registry.go`,
 * `organization_access.go`, `application_access.go`; wire contract §5, §6), so a route or shape of
 * ours that differs from TTS's fails here as it would fail the SDK's users.
 * 3.8.1 predates `DeleteCollaborator` and `DeleteAPIKey`: it removes a collaborator by setting no
 * rights and deletes a key by updating it to no rights (without a field mask), which TTS still
 * honours (`organization_access.go`, "Backwards compatibility for older clients").
 */
import { ALL_ADMIN_RIGHTS, type Right, rightsOfKind } from '@lorawan/api';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import type TtnLw from 'ttn-lw';
import { type Json } from 'ttn-lw';
import { Access, freshId, TOKEN_PATTERN } from './access';
import { Api } from './http-client';

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'events'] })],
  ['embedded', () => startEmbeddedStack()],
];

const R = {
  ALL: 'RIGHT_ALL',
  APP_INFO: 'RIGHT_APPLICATION_INFO',
  DEVICES_READ: 'RIGHT_APPLICATION_DEVICES_READ',
  ORG_INFO: 'RIGHT_ORGANIZATION_INFO',
  ORG_BASIC: 'RIGHT_ORGANIZATION_SETTINGS_BASIC',
  ORG_MEMBERS: 'RIGHT_ORGANIZATION_SETTINGS_MEMBERS',
  ORG_API_KEYS: 'RIGHT_ORGANIZATION_SETTINGS_API_KEYS',
  ORG_DELETE: 'RIGHT_ORGANIZATION_DELETE',
} as const satisfies Record<string, Right>;

/** The user keys' rights: every user, application and organization right the admin may grant (no `*_ALL`, no device keys). */
const USER_KEY_RIGHTS = (['user', 'application', 'organization'] as const).flatMap((kind) => rightsOfKind(kind).filter((r) => ALL_ADMIN_RIGHTS.includes(r)));

/**
 * Fields outside TTS's public ones (`pkg/ttnpb/public.go`): TTS answers a Get by a caller without
 * rights with the public fields (`PublicSafe`) when the mask asks for public fields only, so a
 * refusal is checked with a mask naming a private field.
 */
const PRIVATE = { organization: ['description'], application: ['description'] };

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

const user = (user_id: string) => ({ user_ids: { user_id } });
const organization = (organization_id: string) => ({ organization_ids: { organization_id } });
/** The ID of a list entry: a collaborator (user or organization) or an organization. */
const idOf = (entry: Json): string => entry.ids.user_ids?.user_id ?? entry.ids.organization_ids?.organization_id ?? entry.ids.organization_id;
/** A list's entries by ID, so that checks do not depend on the order. */
const byId = (entries: Json[]) => Object.fromEntries(entries.map((e) => [idOf(e), e]));

/** A TTS error body, as the SDK rejects with it. */
const ttsError = (code: number, namespace: string, name: string) => ({ code, details: [expect.objectContaining({ namespace, name })] });

describe.each(MODES)('the TTS JavaScript SDK 3.8.1 (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const access = new Access(api);
  const [alice, bob] = [freshId('sdk-alice'), freshId('sdk-bob')];
  let asAlice: TtnLw;
  let asBob: TtnLw;

  /**
   * An SDK client holding `token`. The SDK keeps the token of the first client in a module-level
   * singleton (`src/util/token.js`, one token per browser page), so each client gets a fresh copy
   * of the module. `proxy: false`: the stack is local, whatever the environment says.
   */
  async function sdk(token: string): Promise<TtnLw> {
    let client: TtnLw | undefined;
    await jest.isolateModulesAsync(async () => {
      const { default: Sdk } = await import('ttn-lw');
      client = new Sdk(token, { stackConfig: { is: `${stack.baseUrl}/api/v3` }, connectionType: 'http', axiosConfig: { proxy: false } });
    });
    if (!client) throw new Error('ttn-lw did not load');
    return client;
  }

  /** A new organization of alice's, through the SDK. */
  async function aliceOrganization(name = 'SDK team'): Promise<string> {
    const id = freshId('sdk-org');
    await asAlice.Organizations.create(alice, { ids: { organization_id: id }, name });
    return id;
  }

  beforeAll(async () => {
    stack = await start();
    for (const id of [alice, bob]) await access.createUser(id);
    asAlice = await sdk((await access.createKey('user', alice, USER_KEY_RIGHTS)).token);
    asBob = await sdk((await access.createKey('user', bob, USER_KEY_RIGHTS)).token);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('Organizations: create, getById, getAll, updateById, getRightsById and deleteById answer as TTS', async () => {
    const id = freshId('sdk-org');
    const created = await asAlice.Organizations.create(alice, { ids: { organization_id: id }, name: 'SDK team' });
    // TTS answers the organization with the contacts defaulted to the creating user.
    expect(created).toMatchObject({ ids: { organization_id: id }, name: 'SDK team', administrative_contact: user(alice), technical_contact: user(alice) });
    expect(created.created_at).toMatch(RFC3339);
    expect(created.updated_at).toMatch(RFC3339);

    const got = await asAlice.Organizations.getById(id, ['name', 'description']);
    expect(got).toMatchObject({ ids: { organization_id: id }, name: 'SDK team' });
    expect(got.description).toBeUndefined();
    expect(got.administrative_contact).toBeUndefined();

    const all = await asAlice.Organizations.getAll({ limit: 100 }, ['name']);
    expect(all.totalCount).toBe(all.organizations.length);
    expect(byId(all.organizations)[id]).toMatchObject({ ids: { organization_id: id }, name: 'SDK team' });
    // Another user's list does not hold it, and its Get is refused.
    const bobs = await asBob.Organizations.getAll();
    expect(bobs.organizations.map((o) => o.ids.organization_id)).not.toContain(id);
    await expect(asBob.Organizations.getById(id, PRIVATE.organization)).rejects.toMatchObject(ttsError(7, 'pkg/auth/rights', 'no_organization_rights'));

    // updateById derives the field mask from the patch (`description`).
    const updated = await asAlice.Organizations.updateById(id, { description: 'Managed by the SDK' });
    expect(updated).toMatchObject({ ids: { organization_id: id }, description: 'Managed by the SDK' });
    expect(await asAlice.Organizations.getById(id, 'name,description')).toMatchObject({ name: 'SDK team', description: 'Managed by the SDK' });

    const rights = await asAlice.Organizations.getRightsById(id);
    expect(rights.rights).toEqual(expect.arrayContaining([R.ORG_INFO, R.ORG_BASIC, R.ORG_MEMBERS, R.ORG_API_KEYS, R.ORG_DELETE]));
    expect(rights.totalCount).toBe(rights.rights.length);

    // Delete answers `{}`; the organization is gone from its creator's list.
    expect(await asAlice.Organizations.deleteById(id)).toEqual({});
    expect((await asAlice.Organizations.getAll()).organizations.map((o) => o.ids.organization_id)).not.toContain(id);
  });

  it('Organizations.Collaborators (members): add, getAll, getByUserId, update and remove answer as TTS, and change what the member reaches', async () => {
    const org = await aliceOrganization();
    const members = asAlice.Organizations.Collaborators;
    await expect(asBob.Organizations.getById(org, PRIVATE.organization)).rejects.toMatchObject(ttsError(7, 'pkg/auth/rights', 'no_organization_rights'));

    // SetCollaborator answers google.protobuf.Empty.
    expect(await members.add(org, { ids: user(bob), rights: [R.ORG_INFO] })).toEqual({});
    const list = await members.getAll(org);
    expect(list.totalCount).toBe(2);
    expect(byId(list.collaborators)).toEqual({
      [alice]: { ids: user(alice), rights: [R.ALL] },
      [bob]: { ids: user(bob), rights: [R.ORG_INFO] },
    });
    expect(await members.getByUserId(org, bob)).toEqual({ ids: user(bob), rights: [R.ORG_INFO] });
    expect(await asBob.Organizations.getById(org, PRIVATE.organization)).toMatchObject({ ids: { organization_id: org } });
    expect((await asBob.Organizations.getAll()).organizations.map((o) => o.ids.organization_id)).toContain(org);

    expect(await members.update(org, { ids: user(bob), rights: [R.ORG_INFO, R.ORG_MEMBERS] })).toEqual({});
    expect(await members.getByUserId(org, bob)).toEqual({ ids: user(bob), rights: [R.ORG_INFO, R.ORG_MEMBERS].sort() });
    // Now bob manages the members himself.
    expect((await asBob.Organizations.Collaborators.getAll(org)).totalCount).toBe(2);

    // remove = SetCollaborator with no rights: TTS deletes the membership.
    expect(await members.remove(org, { ids: user(bob) })).toEqual({});
    expect((await members.getAll(org)).collaborators).toEqual([{ ids: user(alice), rights: [R.ALL] }]);
    await expect(members.getByUserId(org, bob)).rejects.toMatchObject(ttsError(5, 'pkg/identityserver/store', 'membership_not_found'));
    await expect(asBob.Organizations.getById(org, PRIVATE.organization)).rejects.toMatchObject(ttsError(7, 'pkg/auth/rights', 'no_organization_rights'));
    // An organization is not a member of an organization (TTS errNestedOrganizations).
    const other = await aliceOrganization();
    await expect(members.add(org, { ids: organization(other), rights: [R.ORG_INFO] })).rejects.toMatchObject(
      ttsError(3, 'pkg/identityserver', 'nested_organizations'),
    );
  });

  it('Organizations.ApiKeys: create, getAll, getById, updateById and deleteById answer as TTS, and the key acts for the organization', async () => {
    const org = await aliceOrganization();
    const keys = asAlice.Organizations.ApiKeys;
    const created = await keys.create(org, { name: 'sdk key', rights: [R.ORG_INFO] });
    expect(created).toMatchObject({ name: 'sdk key', rights: [R.ORG_INFO] });
    const m = TOKEN_PATTERN.exec(created.key);
    expect(m?.[1]).toBe(created.id);
    expect(created.created_at).toMatch(RFC3339);
    const asKey = await sdk(created.key);
    expect(await asKey.Organizations.getById(org, ['name'])).toMatchObject({ ids: { organization_id: org }, name: 'SDK team' });
    expect((await asKey.Organizations.getRightsById(org)).rights).toEqual([R.ORG_INFO]);

    // The secret only ever comes from Create.
    const list = await keys.getAll(org);
    expect(list.totalCount).toBe(1);
    expect(list.api_keys).toEqual([expect.objectContaining({ id: created.id, name: 'sdk key', rights: [R.ORG_INFO] })]);
    expect(list.api_keys[0].key).toBeUndefined();
    const got = await keys.getById(org, created.id);
    expect(got).toMatchObject({ id: created.id, name: 'sdk key', rights: [R.ORG_INFO] });
    expect(got.key).toBeUndefined();

    // updateById sends no field mask: TTS then updates name and rights.
    const updated = await keys.updateById(org, created.id, { name: 'renamed by the SDK', rights: [R.ORG_INFO, R.ORG_MEMBERS] });
    expect(updated).toMatchObject({ id: created.id, name: 'renamed by the SDK', rights: [R.ORG_INFO, R.ORG_MEMBERS].sort() });
    expect(updated.key).toBeUndefined();
    expect((await asKey.Organizations.Collaborators.getAll(org)).totalCount).toBe(1);

    // deleteById = UpdateAPIKey with no rights and no field mask: TTS deletes the key and answers `{}` (organization_access.go).
    await expect(keys.deleteById(org, created.id)).resolves.toEqual({});
    expect(await keys.getAll(org)).toEqual({ api_keys: [], totalCount: 0 });
    await expect(asKey.Organizations.getById(org, ['name'])).rejects.toMatchObject(ttsError(16, 'pkg/identityserver', 'api_key_not_found'));
  });

  it('Applications under a user and under an organization; Applications.Collaborators with a user and with an organization', async () => {
    const org = await aliceOrganization();
    const [mine, ours] = [freshId('sdk-app'), freshId('sdk-org-app')];

    const created = await asAlice.Applications.create(alice, { ids: { application_id: mine }, name: 'Mine' });
    expect(created).toMatchObject({ ids: { application_id: mine }, name: 'Mine', administrative_contact: user(alice), technical_contact: user(alice) });
    // isUserOwner = false: `POST /organizations/{…}/applications`; the organization is the contact and holds all rights.
    const underOrg = await asAlice.Applications.create(org, { ids: { application_id: ours }, name: 'Ours' }, false);
    expect(underOrg).toMatchObject({
      ids: { application_id: ours },
      name: 'Ours',
      administrative_contact: organization(org),
      technical_contact: organization(org),
    });
    expect(await asAlice.Applications.Collaborators.getAll(ours)).toEqual({ collaborators: [{ ids: organization(org), rights: [R.ALL] }], totalCount: 1 });

    const collaborators = asAlice.Applications.Collaborators;
    expect(await collaborators.add(mine, { ids: user(bob), rights: [R.APP_INFO, R.DEVICES_READ] })).toEqual({});
    expect(await collaborators.add(mine, { ids: organization(org), rights: [R.APP_INFO] })).toEqual({});
    const list = await collaborators.getAll(mine);
    expect(list.totalCount).toBe(3);
    expect(byId(list.collaborators)).toEqual({
      [alice]: { ids: user(alice), rights: [R.ALL] },
      [bob]: { ids: user(bob), rights: [R.APP_INFO, R.DEVICES_READ].sort() },
      [org]: { ids: organization(org), rights: [R.APP_INFO] },
    });
    expect(await collaborators.getByUserId(mine, bob)).toEqual({ ids: user(bob), rights: [R.APP_INFO, R.DEVICES_READ].sort() });
    expect(await collaborators.getByOrganizationId(mine, org)).toEqual({ ids: organization(org), rights: [R.APP_INFO] });
    expect(await asBob.Applications.getById(mine, ['name'])).toMatchObject({ ids: { application_id: mine }, name: 'Mine' });

    // alice lists both: hers, and the organization's through her membership.
    const alices = await asAlice.Applications.getAll({ limit: 100 }, ['name']);
    expect(alices.totalCount).toBe(alices.applications.length);
    expect(alices.applications.map((a) => a.ids.application_id)).toEqual(expect.arrayContaining([mine, ours]));
    // bob reaches the organization's application once a member, with his rights there ∩ the organization's.
    await expect(asBob.Applications.getById(ours, PRIVATE.application)).rejects.toMatchObject(ttsError(7, 'pkg/auth/rights', 'no_application_rights'));
    expect(await asAlice.Organizations.Collaborators.add(org, { ids: user(bob), rights: [R.APP_INFO] })).toEqual({});
    expect(await asBob.Applications.getRightsById(ours)).toEqual({ rights: [R.APP_INFO], totalCount: 1 });
    expect((await asBob.Applications.getAll()).applications.map((a) => a.ids.application_id)).toEqual(expect.arrayContaining([mine, ours]));
    // `Applications.getByOrganization` and `getByCollaborator` are not driven: in 3.8.1 they do not
    // await the request (`src/service/applications.js`) and always answer an empty list.

    // remove = SetCollaborator with no rights, for an organization and for a user.
    expect(await collaborators.remove(mine, { ids: organization(org) })).toEqual({});
    await expect(collaborators.getByOrganizationId(mine, org)).rejects.toMatchObject(ttsError(5, 'pkg/identityserver/store', 'membership_not_found'));
    expect(await collaborators.remove(mine, { ids: user(bob) })).toEqual({});
    expect(await collaborators.getAll(mine)).toEqual({ collaborators: [{ ids: user(alice), rights: [R.ALL] }], totalCount: 1 });
    await expect(asBob.Applications.getById(mine, PRIVATE.application)).rejects.toMatchObject(ttsError(7, 'pkg/auth/rights', 'no_application_rights'));
  });
});
