/**
 * Tenant safety, finding 4 of issue 29, in both run modes: a key that may manage API keys
 * (`<KIND>_SETTINGS_API_KEYS`) changes or deletes only keys whose every right it holds. The probe
 * had a key with `RIGHT_APPLICATION_SETTINGS_API_KEYS` + INFO delete, expire and rename a
 * `RIGHT_APPLICATION_ALL` key; here that is refused on every entity kind with keys (users,
 * applications, gateways, organizations; OAuth clients have none) with TTS's 403
 * `insufficient_<kind>_rights` naming the rights missing, and the strong key keeps working.
 * Rules: docs/identity-and-access.md "API keys"; TTS `<entity>_access.go` (its rule for updates, applied to every change and to delete).
 */
import { ALL_ADMIN_RIGHTS, type Right, rightsOfKind } from '@lorawan/api';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Access, apiKeysPath, bearer, entityPath, expectHttp, freshId, type Kind, KINDS, missingOf } from '../access';
import { Api, type ApiResponse, expectTtsError } from '../http-client';

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is'] })],
  ['embedded', () => startEmbeddedStack()],
];

const PREFIX: Record<Kind, string> = { application: 'APPLICATION', gateway: 'GATEWAY', user: 'USER', organization: 'ORGANIZATION' };
const right = (kind: Kind, name: string) => `RIGHT_${PREFIX[kind]}_${name}` as Right;
/**
 * The strong key: `<KIND>_ALL` where the admin, a collaborator with `RIGHT_ALL`, may grant it;
 * on another user, the rights the admin may grant there (its universal rights hold no `*_ALL`).
 */
const strongRights = (kind: Kind): Right[] => (kind === 'user' ? rightsOfKind('user').filter((r) => ALL_ADMIN_RIGHTS.includes(r)) : [right(kind, 'ALL')]);
/** The weak key: it may manage API keys and see the entity, nothing more. */
const weakRights = (kind: Kind): Right[] => [right(kind, 'SETTINGS_API_KEYS'), right(kind, 'INFO')];
const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

describe.each(MODES)('tenant safety: a weaker key cannot change or delete a stronger one (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const access = new Access(api);
  const ok = (res: ApiResponse, what: string) => expectHttp(res, 200, `${mode}: ${what}`);

  beforeAll(async () => {
    stack = await start();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it.each(KINDS)('%s keys', async (kind) => {
    const id = freshId(`ts-${kind.slice(0, 3)}`);
    await access.createEntity(kind, id);
    const strong = await access.createKey(kind, id, strongRights(kind), { name: 'strong' });
    const weak = await access.createKey(kind, id, weakRights(kind), { name: 'weak' });
    const asWeak = bearer(weak.token);
    const keyPath = (keyId: string) => `${apiKeysPath(kind, id)}/${keyId}`;
    const update = (keyId: string, api_key: Record<string, unknown>, paths: string[]) =>
      api.put(keyPath(keyId), { api_key: { id: keyId, ...api_key }, field_mask: { paths } }, asWeak);
    const missing = strongRights(kind).filter((r) => !weakRights(kind).includes(r));
    const refused = (res: ApiResponse, what: string) => {
      try {
        expectTtsError(res, 403, 7, 'pkg/auth/rights', `insufficient_${kind}_rights`, { uid: id });
        expect(missingOf(res)).toEqual([...missing].sort());
      } catch (err) {
        throw new Error(`${mode}: the weak ${kind} key ${what} the strong one: ${(err as Error).message}`);
      }
    };

    refused(await api.delete(keyPath(strong.id), asWeak), 'deletes');
    refused(await update(strong.id, { expires_at: future(1) }, ['expires_at']), 'expires');
    refused(await update(strong.id, { name: 'renamed' }, ['name']), 'renames');
    refused(await update(strong.id, { rights: [] }, ['rights']), 'deletes (an update to no rights)');
    refused(await update(strong.id, { rights: weakRights(kind) }, ['rights']), 'strips');
    refused(await update(strong.id, { name: 'renamed', rights: strongRights(kind) }, []), 'renames (no mask: name and rights)');

    // The strong key is as it was, and works.
    const got = await api.get(keyPath(strong.id));
    ok(got, `get the strong ${kind} key`);
    expect(got.json).toMatchObject({ id: strong.id, name: 'strong', rights: strongRights(kind) });
    expect(got.json).not.toHaveProperty('expires_at');
    ok(await api.get(entityPath(kind, id), bearer(strong.token)), `the strong ${kind} key still reads its ${kind}`);

    // Keys within the weak key's rights it manages as before.
    const lesser = await access.createKey(kind, id, [right(kind, 'INFO')], { name: 'lesser' });
    ok(await update(lesser.id, { name: 'renamed', expires_at: future(2) }, ['name', 'expires_at']), `the weak ${kind} key renames and expires a lesser one`);
    ok(await api.delete(keyPath(lesser.id), asWeak), `the weak ${kind} key deletes a lesser one`);
    ok(await api.delete(keyPath(weak.id), asWeak), `the weak ${kind} key deletes itself`);
    // And a key holding them all deletes the strong one.
    ok(await api.delete(keyPath(strong.id)), `the admin deletes the strong ${kind} key`);
  });
});
