import { decodeMessage, GetApplicationLinkRequest, RPCS, SetApplicationLinkRequest } from '@lorawan/api';
import { openTestDataSource } from '@lorawan/registry/conformance';
import { AS_MIGRATIONS } from '../migrations';
import { ApplicationLinkRegistry } from './application-link.service';
import { SqlLinkStore } from './application-link.store';
import { errorOf } from '../testing/as-test-kit';

/** The application link registry (As.GetLink|SetLink|DeleteLink) on a real AS store (SQLite and MariaDB). */

type Json = Record<string, unknown>;
const SCRIPT = 'function decodeUplink(input) { return { data: { n: input.bytes.length } }; }';
const app = (application_id: string) => ({ application_id });
const getReq = (application_id: string, paths?: string[]) =>
  decodeMessage(GetApplicationLinkRequest, { application_ids: app(application_id), ...(paths ? { field_mask: paths.join(',') } : {}) });
const setReq = (application_id: string, link: Json, paths: string[]) =>
  decodeMessage(SetApplicationLinkRequest, { application_ids: app(application_id), link, field_mask: { paths } });

describe('As link RPCs', () => {
  it('are bound as TTS: GET|PUT /as/applications/{application_ids.application_id}/link, DELETE …/{application_id}/link, basic settings', () => {
    expect(RPCS['As.GetLink'].http).toEqual([{ verb: 'GET', path: '/as/applications/{application_ids.application_id}/link' }]);
    expect(RPCS['As.SetLink'].http).toEqual([{ verb: 'PUT', path: '/as/applications/{application_ids.application_id}/link', body: '*' }]);
    expect(RPCS['As.DeleteLink'].http).toEqual([{ verb: 'DELETE', path: '/as/applications/{application_id}/link' }]);
    for (const name of ['As.GetLink', 'As.SetLink', 'As.DeleteLink'] as const) {
      expect(RPCS[name].rights).toEqual(['RIGHT_APPLICATION_SETTINGS_BASIC']);
      expect(RPCS[name].subject).toBe(`rpc.as.${name}`);
    }
  });

  it('validates the link as the device formatters (at decode, the one validation point of requests)', async () => {
    const cases: Array<[Json, string]> = [
      [{ default_formatters: { up_formatter: 'FORMATTER_NOPE' } }, 'default_formatters'],
      [{ default_formatters: { up_formatter: 'FORMATTER_JAVASCRIPT' } }, 'default_formatters'],
      [{ default_formatters: { down_formatter_parameter: 'x' } }, 'default_formatters'],
      [{ default_formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: 'x'.repeat(40961) } }, 'default_formatters'],
      [{ skip_payload_crypto: 'yes' }, 'skip_payload_crypto'],
    ];
    for (const [link, field] of cases) {
      const err = await errorOf(() => setReq('app-x', link, ['default_formatters']));
      expect([err.namespace, err.errorName, err.code, err.attributes.field]).toEqual(['pkg/errors', 'validation', 3, 'link']);
      expect(err.toDetails().cause?.attributes?.field).toBe(field);
    }
    expect((await errorOf(() => decodeMessage(SetApplicationLinkRequest, { application_ids: app('app-x') }))).attributes.field).toBe('link');
    // The BoolValue takes its wrapper form too.
    expect(setReq('app-x', { skip_payload_crypto: { value: true } }, ['skip_payload_crypto']).link.skip_payload_crypto).toBe(true);
  });
});

describe.each(['sqlite', 'mysql'] as const)('ApplicationLinkRegistry (%s)', (driver) => {
  let db: Awaited<ReturnType<typeof openTestDataSource>>;
  let links: ApplicationLinkRegistry;
  let store: SqlLinkStore;

  beforeAll(async () => {
    db = await openTestDataSource('as', AS_MIGRATIONS, driver);
    store = new SqlLinkStore(db.ds);
    links = new ApplicationLinkRegistry(store);
  });
  afterAll(async () => db.close());

  it('Get of an application without a link is 404 pkg/redis:not_found', async () => {
    const err = await errorOf(links.get(getReq('app-none', ['default_formatters'])));
    expect([err.namespace, err.errorName, err.code]).toEqual(['pkg/redis', 'not_found', 5]);
    expect(await links.find('app-none')).toBeUndefined();
  });

  it('Set creates the link with the masked paths and answers the whole link; Get answers the masked paths only', async () => {
    const set = await links.set(
      setReq(
        'app-1',
        {
          default_formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: SCRIPT, down_formatter: 'FORMATTER_CAYENNELPP' },
          skip_payload_crypto: true,
        },
        ['default_formatters'],
      ),
    );
    expect(set).toEqual({
      default_formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: SCRIPT, down_formatter: 'FORMATTER_CAYENNELPP' },
    });
    expect(await links.get(getReq('app-1'))).toEqual({});
    expect(await links.get(getReq('app-1', ['default_formatters.up_formatter', 'skip_payload_crypto']))).toEqual({
      default_formatters: { up_formatter: 'FORMATTER_JAVASCRIPT' },
    });
    expect(await links.get(getReq('app-1', ['default_formatters']))).toEqual(set);
    const stored = await store.get('app-1');
    expect(stored?.created_at).toMatch(/Z$/);
    expect(stored?.updated_at).toBe(stored?.created_at);
  });

  it('Set updates only the masked paths (sub-paths too), keeps created_at; false is a value of skip_payload_crypto', async () => {
    await links.set(
      setReq('app-2', { default_formatters: { up_formatter: 'FORMATTER_CAYENNELPP', down_formatter: 'FORMATTER_CAYENNELPP' } }, ['default_formatters']),
    );
    const created = await store.get('app-2');
    await new Promise((r) => setTimeout(r, 5));
    const updated = await links.set(
      setReq(
        'app-2',
        {
          default_formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: SCRIPT, down_formatter: 'FORMATTER_NONE' },
          skip_payload_crypto: false,
        },
        ['default_formatters.up_formatter', 'default_formatters.up_formatter_parameter', 'skip_payload_crypto'],
      ),
    );
    expect(updated).toEqual({
      default_formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: SCRIPT, down_formatter: 'FORMATTER_CAYENNELPP' },
      skip_payload_crypto: false,
    });
    const after = await store.get('app-2');
    expect(after?.created_at).toBe(created?.created_at);
    expect(after?.updated_at).not.toBe(created?.updated_at);
    // A masked path absent from the request clears it.
    expect(await links.set(setReq('app-2', {}, ['skip_payload_crypto', 'default_formatters.down_formatter']))).toEqual({
      default_formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: SCRIPT },
    });
    // An empty mask changes nothing and answers the link (or {} when there is none).
    expect(await links.set(setReq('app-2', { skip_payload_crypto: true }, []))).toEqual({
      default_formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: SCRIPT },
    });
    expect(await links.set(setReq('app-empty', { skip_payload_crypto: true }, []))).toEqual({});
    expect(await store.get('app-empty')).toBeUndefined();
  });

  it('Set re-validates the resulting link: a script formatter whose parameter the mask clears is refused, nothing stored', async () => {
    await links.set(setReq('app-3', { default_formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: SCRIPT } }, ['default_formatters']));
    const before = await store.get('app-3');
    const err = await errorOf(links.set(setReq('app-3', {}, ['default_formatters.up_formatter_parameter'])));
    expect([err.errorName, err.code, err.attributes.field]).toEqual(['validation', 3, 'default_formatters']);
    expect(await store.get('app-3')).toEqual(before);
  });

  it('refuses unknown mask paths with field_mask_paths (400) and ignores the removed fields’ paths', async () => {
    for (const p of [links.get(getReq('app-1', ['default_formatters', 'nope'])), links.set(setReq('app-1', {}, ['default_formatters.up', 'ids']))]) {
      const err = await errorOf(p);
      expect([err.namespace, err.errorName, err.code]).toEqual(['pkg/rpcmiddleware/validator', 'field_mask_paths', 3]);
    }
    expect(((await errorOf(links.get(getReq('app-1', ['nope'])))).attributes as Json).forbidden_paths).toEqual(['nope']);
    expect(await links.set(setReq('app-4', { skip_payload_crypto: true }, ['skip_payload_crypto', 'api_key', 'network_server_address', 'tls']))).toEqual({
      skip_payload_crypto: true,
    });
    expect(await links.get(getReq('app-4', ['tls', 'skip_payload_crypto']))).toEqual({ skip_payload_crypto: true });
  });

  it('stores the largest link validation lets through: two 40960-byte formatter scripts', async () => {
    const script = (name: string) => `function ${name}(input) { return {}; } //`.padEnd(40960, 'x');
    const formatters = {
      up_formatter: 'FORMATTER_JAVASCRIPT',
      up_formatter_parameter: script('decodeUplink'),
      down_formatter: 'FORMATTER_JAVASCRIPT',
      down_formatter_parameter: script('encodeDownlink'),
    };
    expect(await links.set(setReq('app-largest', { default_formatters: formatters }, ['default_formatters']))).toEqual({ default_formatters: formatters });
    expect(await links.get(getReq('app-largest', ['default_formatters']))).toEqual({ default_formatters: formatters });
  });

  it('Delete removes the link and answers {}, also when there is none', async () => {
    await links.set(setReq('app-5', { skip_payload_crypto: true }, ['skip_payload_crypto']));
    expect(await links.find('app-5')).toEqual({ skip_payload_crypto: true });
    expect(await links.delete(app('app-5'))).toEqual({});
    expect((await errorOf(links.get(getReq('app-5', ['skip_payload_crypto'])))).errorName).toBe('not_found');
    expect(await links.delete(app('app-5'))).toEqual({});
    // Other applications' links are untouched.
    expect(await links.find('app-1')).toBeDefined();
  });

  it('concurrent Sets of a new link all succeed (single-statement upsert), one wins', async () => {
    const results = await Promise.all(
      ['FORMATTER_CAYENNELPP', 'FORMATTER_NONE', 'FORMATTER_CAYENNELPP', 'FORMATTER_NONE'].map((f) =>
        links.set(setReq('app-conc', { default_formatters: { down_formatter: f } }, ['default_formatters'])),
      ),
    );
    expect(results).toHaveLength(4);
    expect(['FORMATTER_CAYENNELPP', 'FORMATTER_NONE']).toContain((await links.find('app-conc'))?.default_formatters?.down_formatter);
  });
});
