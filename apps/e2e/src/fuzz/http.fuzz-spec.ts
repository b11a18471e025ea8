/**
 * HTTP fuzzing of every binding of the RPC table (`RPCS`) against a real stack (embedded; add
 * `FUZZ_MODES=embedded,distributed` for one process per component). Bodies come from the request
 * class's validation metadata (`request-arbitraries.ts`): valid-ish values, then mutations (wrong
 * types, limits ±1, strings breaking the pattern, unknown enum names, unicode with lone surrogates
 * and NUL, deep nesting, huge arrays, prototype-named keys), and raw-level breakage (malformed
 * JSON, wrong content types, oversized bodies, odd path parameters and query strings). Paths name
 * existing fixtures (an application, an end device in every registry, a gateway, a webhook, an
 * organization, the admin user) or missing or odd IDs. Sent with the admin key.
 *
 * Asserted for every request: never a 5xx; a 4xx carries the TTS error shape (`code`, `message`,
 * `details` a list of typed details when present; or the empty body of a binding's `httpStatusFor`);
 * for writes with a GET binding on the same path, a refused write leaves that GET's answer as it
 * was (the entity, or the list for creates); after each binding, every process runs and readiness
 * is 200. Destructive routes (DELETE, and writes on the admin user itself) only name missing or odd
 * IDs, so the fixtures survive the run.
 *
 * The abusive payload formatters of issue 29 (`ABUSIVE_FORMATTERS` of @lorawan/testing) are among
 * the values of the formatter fields, and a property of their own sets them on a device and on the
 * application link and then runs them: simulated uplinks, downlink pushes and replaces (no 5xx,
 * every process up).
 *
 * Read-back of accepted writes is checked for a subset: applications (Create, Update) and the
 * Identity Server's end devices (Create, Update) on `name`, `description` and `attributes`; a
 * refused one must leave the entity absent (create) or unchanged (update).
 */
import fc from 'fast-check';
import { ALLOWED_PATHS, Application, EndDevice, fieldsOf, type HttpBinding, RPCS, type RpcDefinition } from '@lorawan/api';
import { ABUSIVE_FORMATTERS, type StackUnderTest } from '@lorawan/testing';
import { ADMIN_USER_ID, Api, createApplications } from '../http-client';
import { randomDevAddr, randomKey, uid } from '../devices';
import { expectAlive, FUZZ_BUDGET_MS, FUZZ_RUNS, FUZZ_SEED, MODES } from './fuzz-config';
import { deep, fieldPaths, messageArbitrary, mutant, nastyString, setPath, validish } from './request-arbitraries';

const BINDINGS: Array<{ rpc: RpcDefinition; binding: HttpBinding }> = Object.values(RPCS as Record<string, RpcDefinition>)
  .filter((rpc) => !rpc.unauthenticated)
  .flatMap((rpc) => rpc.http.map((binding) => ({ rpc, binding })));
const GET_BINDINGS = BINDINGS.filter((b) => b.binding.verb === 'GET' && !b.rpc.stream);

/** Body limit of the gateway (1 MiB less 64 KiB): twice that is surely too large. */
const OVERSIZED = 2 * 1024 * 1024;

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
interface Answer {
  status: number;
  contentType: string;
  text: string;
  total: string | null;
}

const counts = { requests: 0, readBacks: 0, byStatus: {} as Record<string, number>, bindings: 0, roundTrips: 0 };

/** The field-mask paths an RPC allows (none known: empty). */
const allowedPaths = (rpc: RpcDefinition): string[] => [...((ALLOWED_PATHS as Record<string, Iterable<string>>)[rpc.name] ?? [])];

/** encodeURIComponent, with a lone surrogate sent as its (invalid) UTF-8 bytes instead of throwing. */
const encodeLoose = (v: string) =>
  v
    .split(/([\ud800-\udfff])/u)
    .map((part) => (/^[\ud800-\udfff]$/u.test(part) ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');

const VARIABLE = /\{([^}]+)\}/g;
const ODD_IDS = [
  '%00',
  '%2F',
  '__proto__',
  'constructor',
  'prototype',
  'a'.repeat(300),
  '%E2%80%AE',
  '%ZZ',
  '%F0%9F%92%A9',
  'UPPER',
  ';',
  '%FF',
  '%20',
  '-',
  'a',
  'a..b',
];

describe.each(MODES)('HTTP fuzzing (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const app = uid('fz-app');
  const device = uid('fz-dev');
  const gateway = uid('fz-gtw');
  const org = uid('fz-org');
  const webhook = 'fz-hook';
  const started = Date.now();

  beforeAll(async () => {
    stack = await start();
    await createApplications(api, [app]);
    const ok = async (p: Promise<{ status: number; text: string }>, what: string) => {
      const res = await p;
      if (res.status !== 200) throw new Error(`${what}: HTTP ${res.status} ${res.text}`);
    };
    await ok(
      api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { device_id: device, application_ids: { application_id: app } } } }),
      'device',
    );
    await ok(
      api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, {
        gateway: { ids: { gateway_id: gateway, eui: '00800000A0001234' }, frequency_plan_id: 'EU_863_870_TTN' },
      }),
      'gateway',
    );
    await ok(api.post(`/api/v3/users/${ADMIN_USER_ID}/organizations`, { organization: { ids: { organization_id: org } } }), 'organization');
    await ok(
      api.put(`/api/v3/as/webhooks/${app}/${webhook}`, {
        webhook: { base_url: 'https://example.com/hook', format: 'json' },
        field_mask: { paths: ['base_url', 'format'] },
      }),
      'webhook',
    );
  });

  afterAll(async () => {
    process.stdout.write(`${JSON.stringify({ fuzz: 'http', mode: _mode, seed: FUZZ_SEED, ...counts, ms: Date.now() - started })}\n`);
    await stack?.stop();
  });

  /** The fixture a path variable names, or undefined for a variable with no fixture (a missing ID then). */
  function existing(variable: string, destructive: boolean): string | undefined {
    const last = variable.split('.').pop();
    if (destructive) return undefined;
    const fixtures: Record<string, string> = {
      application_id: app,
      device_id: device,
      gateway_id: gateway,
      organization_id: org,
      webhook_id: webhook,
      user_id: ADMIN_USER_ID,
    };
    return last === undefined ? undefined : fixtures[last];
  }

  type PathChoice = 'existing' | 'missing' | 'odd';
  const pathChoice = fc.oneof(
    { weight: 6, arbitrary: fc.constant<PathChoice>('existing') },
    { weight: 2, arbitrary: fc.constant<PathChoice>('missing') },
    { weight: 2, arbitrary: fc.constant<PathChoice>('odd') },
  );

  function fillPath(template: string, choice: PathChoice, odd: string, destructive: boolean): string {
    return template.replace(VARIABLE, (_m, variable: string) => {
      const fixture = existing(variable, destructive);
      if (choice === 'odd') return odd;
      if (choice === 'existing' && fixture) return encodeURIComponent(fixture);
      return variable.endsWith('eui') ? '0011223344556677' : `fz-missing-${variable.split('.').pop()?.replace(/_/g, '-')}`;
    });
  }

  const queryArb = (rpc: RpcDefinition) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constant('') },
      {
        weight: 3,
        arbitrary: fc
          .subarray(allowedPaths(rpc), { maxLength: Math.min(5, allowedPaths(rpc).length) })
          .map((p) => (p.length ? `?field_mask=${encodeURIComponent(p.join(','))}` : '')),
      },
      {
        weight: 3,
        arbitrary: fc
          .array(
            fc.tuple(
              fc.constantFrom('field_mask', 'limit', 'page', 'order', '__proto__[x]', 'constructor', 'a[b]', 'field_mask.paths', 'names', 'tail', 'after'),
              fc.oneof(nastyString, fc.constantFrom('-1', '0', '1', '4294967296', 'abc', 'name,', ',,,', '__proto__', 'ids.device_id', '1e99')),
            ),
            { maxLength: 4 },
          )
          .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${encodeLoose(k)}=${encodeLoose(v)}`).join('&')}` : '')),
      },
      { weight: 1, arbitrary: fc.constantFrom('?', '?&&', '?=', '?field_mask', '?%ZZ=1', '?a=%ZZ', `?x=${'a'.repeat(10_000)}`) },
    );

  const MALFORMED_JSON = ['{', '{"a":}', '[1,]', '{"a":1}garbage', '\ufeff{}', '{"a":NaN}', 'nul', '"\\ud800"', '{"a":"\\u0000"}', '{"a" 1}', '{}{}', '', ' '];
  const CONTENT_TYPES = [
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    'application/xml',
    '',
  ];

  /** The body of a request: JSON text and its content type. */
  function bodyArb(rpc: RpcDefinition): fc.Arbitrary<{ text: string; contentType: string }> {
    const paths = allowedPaths(rpc);
    const message = messageArbitrary(rpc.request, { paths });
    const places = fieldPaths(rpc.request);
    const json = 'application/json';
    const mutated =
      places.length === 0
        ? message
        : fc
            .tuple(
              message,
              fc.array(
                fc.constantFrom(...places).chain((p) => mutant(p.rules).map((v) => ({ path: p.path, v }))),
                { minLength: 1, maxLength: 3 },
              ),
            )
            .map(([m, ms]) => ms.reduce((body, { path, v }) => setPath(body, path, v), m));
    return fc.oneof(
      { weight: 3, arbitrary: message.map((m) => ({ text: JSON.stringify(m), contentType: json })) },
      { weight: 5, arbitrary: mutated.map((m) => ({ text: JSON.stringify(m), contentType: json })) },
      { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_JSON).map((text) => ({ text, contentType: json })) },
      { weight: 1, arbitrary: fc.tuple(message, fc.constantFrom(...CONTENT_TYPES)).map(([m, contentType]) => ({ text: JSON.stringify(m), contentType })) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          { text: JSON.stringify({ pad: 'a'.repeat(OVERSIZED) }), contentType: json },
          { text: `${'['.repeat(100_000)}${']'.repeat(100_000)}`, contentType: json },
          { text: JSON.stringify(deep(1000)), contentType: json },
          { text: JSON.stringify(new Array(200_000).fill(0)), contentType: json },
          {
            text: JSON.stringify(
              Object.fromEntries([
                ['__proto__', { admin: true }],
                ['constructor', { prototype: { x: 1 } }],
              ]),
            ),
            contentType: json,
          },
        ),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => ({ text: JSON.stringify(v) ?? 'null', contentType: json })) },
    );
  }

  async function send(s: Sent, stream = false): Promise<Answer> {
    const controller = new AbortController();
    let res: Response;
    try {
      res = await fetch(stack.baseUrl + s.path, { method: s.method, headers: s.headers, body: s.body, signal: controller.signal });
    } catch (err) {
      // The server may answer an oversized request (413/431) and close before the client has written it all.
      if ((s.body?.length ?? 0) > OVERSIZED / 2 || s.path.length > 8192) return { status: 0, contentType: '', text: String(err), total: null };
      throw err;
    }
    let text = '';
    if (stream && res.status === 200) controller.abort();
    else text = await res.text();
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, total: res.headers.get('x-total-count') };
  }

  /** Never a 5xx; a 4xx in the TTS error shape. */
  function checkAnswer(rpc: RpcDefinition, s: Sent, a: Answer): void {
    counts.byStatus[a.status === 0 ? 'reset' : a.status] = (counts.byStatus[a.status === 0 ? 'reset' : a.status] ?? 0) + 1;
    if (a.status === 0) return; // an oversized request cut off by the server (see `send`)
    const where = `${s.method} ${s.path.slice(0, 300)} (body ${(s.body ?? '').slice(0, 300)}, content-type ${s.headers['content-type'] ?? 'none'})`;
    if (a.status >= 500) throw new Error(`${where} → HTTP ${a.status} ${a.text.slice(0, 2000)}`);
    if (a.status < 400) return;
    if (a.text === '' && Object.values(rpc.httpStatusFor ?? {}).includes(a.status)) return;
    if (!/^application\/json/.test(a.contentType)) throw new Error(`${where} → HTTP ${a.status} with content-type ${a.contentType}: ${a.text.slice(0, 500)}`);
    // A stream's refusal is its first frame, `{"error": status}` (wire contract §5).
    const parsed = JSON.parse(a.text) as { code?: unknown; message?: unknown; details?: unknown; error?: unknown };
    const body = (rpc.stream && typeof parsed.error === 'object' && parsed.error !== null ? parsed.error : parsed) as typeof parsed;
    const detailsOk =
      body.details === undefined || (Array.isArray(body.details) && body.details.every((d) => typeof (d as { '@type'?: unknown })['@type'] === 'string'));
    if (typeof body.code !== 'number' || typeof body.message !== 'string' || !detailsOk)
      throw new Error(`${where} → HTTP ${a.status}, not the TTS error shape: ${a.text.slice(0, 500)}`);
  }

  /** The GET on the same path template as a write (its entity, or the list a create adds to). */
  function readBackOf(binding: HttpBinding): { rpc: RpcDefinition; binding: HttpBinding } | undefined {
    return binding.verb === 'GET' ? undefined : GET_BINDINGS.find((g) => g.binding.path === binding.path);
  }

  const admin = () => ({ authorization: `Bearer ${stack.adminKey}` });

  async function readBack(path: string): Promise<{ status: number; json: string; total: string | null }> {
    counts.readBacks++;
    const a = await send({ method: 'GET', path, headers: admin() });
    return { status: a.status, json: a.status === 200 ? a.text : '', total: a.total };
  }

  const budgetPerBinding = FUZZ_BUDGET_MS / (BINDINGS.length + 4);

  it.each(BINDINGS.map((b) => [`${b.binding.verb} ${b.binding.path}`, b] as const))('%s', async (_name, { rpc, binding }) => {
    counts.bindings++;
    const destructive = binding.verb === 'DELETE' || (binding.verb !== 'GET' && /\{user(_ids|\.ids)\.user_id\}$/.test(binding.path));
    const getter = readBackOf(binding);
    const withBody = binding.body === '*';
    const property = fc.asyncProperty(
      pathChoice,
      fc.constantFrom(...ODD_IDS),
      queryArb(rpc),
      withBody || binding.verb === 'DELETE' ? fc.option(bodyArb(rpc), { freq: withBody ? 10 : 3, nil: undefined }) : fc.constant(undefined),
      async (choice, odd, query, body) => {
        const path = `/api/v3${fillPath(binding.path, choice, odd, destructive)}`;
        const headers: Record<string, string> = admin();
        if (body && body.contentType) headers['content-type'] = body.contentType;
        const s: Sent = { method: binding.verb, path: path + query, headers, body: body?.text };
        const before = getter && choice !== 'odd' ? await readBack(path) : undefined;
        counts.requests++;
        const a = await send(s, rpc.stream);
        checkAnswer(rpc, s, a);
        if (before && (a.status >= 400 || a.status === 0)) {
          const after = await readBack(path);
          if (after.status !== before.status || after.json !== before.json || after.total !== before.total)
            throw new Error(
              `${s.method} ${s.path} refused with ${a.status} (${a.text.slice(0, 300)}) but GET ${path} changed:\n${JSON.stringify(before).slice(0, 1500)}\n→ ${JSON.stringify(after).slice(0, 1500)}`,
            );
        }
      },
    );
    await fc.assert(property, {
      seed: FUZZ_SEED + counts.bindings,
      numRuns: FUZZ_RUNS,
      interruptAfterTimeLimit: budgetPerBinding,
      markInterruptAsFailure: false,
      endOnFailure: true,
    });
    await expectAlive(stack);
  });

  it('abusive formatter scripts set on a device or as the link’s defaults, then run by simulated uplinks and downlink pushes: never a 5xx', async () => {
    const dev = uid('fz-fmt');
    const ids = { device_id: dev, application_ids: { application_id: app } };
    const session = { dev_addr: randomDevAddr(), keys: { session_key_id: 'AQID', app_s_key: { key: randomKey() } } };
    const sendChecked = async (rpc: string, method: string, path: string, body: unknown) => {
      const s: Sent = { method, path, headers: { ...admin(), 'content-type': 'application/json' }, body: JSON.stringify(body) };
      counts.requests++;
      checkAnswer(RPCS[rpc as keyof typeof RPCS] as RpcDefinition, s, await send(s));
    };
    await sendChecked('EndDeviceRegistry.Create', 'POST', `/api/v3/applications/${app}/devices`, { end_device: { ids } });
    await sendChecked('AsEndDeviceRegistry.Set', 'PUT', `/api/v3/as/applications/${app}/devices/${dev}`, {
      end_device: { ids, session },
      field_mask: { paths: ['session.dev_addr', 'session.keys.session_key_id', 'session.keys.app_s_key.key'] },
    });
    const property = fc.asyncProperty(
      fc.constantFrom(...ABUSIVE_FORMATTERS),
      fc.constantFrom('device', 'link'),
      fc.constantFrom('up/simulate', 'down/push', 'down/replace'),
      fc.uint8Array({ maxLength: 32 }),
      fc.integer({ min: 0, max: 255 }),
      async (formatter, where, route, payload, fPort) => {
        const formatters = {
          up_formatter: 'FORMATTER_JAVASCRIPT',
          up_formatter_parameter: formatter.script,
          down_formatter: 'FORMATTER_JAVASCRIPT',
          down_formatter_parameter: formatter.script,
        };
        if (where === 'device')
          await sendChecked('AsEndDeviceRegistry.Set', 'PUT', `/api/v3/as/applications/${app}/devices/${dev}`, {
            end_device: { ids, formatters },
            field_mask: { paths: ['formatters'] },
          });
        else {
          await sendChecked('AsEndDeviceRegistry.Set', 'PUT', `/api/v3/as/applications/${app}/devices/${dev}`, {
            end_device: { ids },
            field_mask: { paths: ['formatters'] },
          });
          await sendChecked('As.SetLink', 'PUT', `/api/v3/as/applications/${app}/link`, {
            link: { default_formatters: formatters },
            field_mask: { paths: ['default_formatters'] },
          });
        }
        const frm = Buffer.from(payload).toString('base64');
        if (route === 'up/simulate')
          await sendChecked('AppAs.SimulateUplink', 'POST', `/api/v3/as/applications/${app}/devices/${dev}/up/simulate`, {
            uplink_message: { f_port: fPort, frm_payload: frm },
          });
        else
          await sendChecked(
            route === 'down/push' ? 'AppAs.DownlinkQueuePush' : 'AppAs.DownlinkQueueReplace',
            'POST',
            `/api/v3/as/applications/${app}/devices/${dev}/${route}`,
            {
              downlinks: [{ f_port: fPort, decoded_payload: { bytes: [...payload] } }],
            },
          );
      },
    );
    await fc.assert(property, {
      seed: FUZZ_SEED + 30_001,
      numRuns: FUZZ_RUNS * 2,
      interruptAfterTimeLimit: budgetPerBinding * 4,
      markInterruptAsFailure: false,
      endOnFailure: true,
    });
    await expectAlive(stack);
  });

  // ----------------------------------------------------------------------------------------------
  // Accepted writes read back equal on the fields sent; refused ones store nothing.

  const FIELDS = ['name', 'description', 'attributes'] as const;
  type Fields = Partial<Record<(typeof FIELDS)[number], unknown>>;

  /** Valid-ish or broken values of name, description and attributes, from the message class's metadata. */
  function fieldsArb(cls: typeof Application | typeof EndDevice): fc.Arbitrary<Fields> {
    const rules = fieldsOf(cls);
    const one = (f: (typeof FIELDS)[number]) => {
      const r = rules.get(f) ?? [];
      return fc.oneof({ weight: 4, arbitrary: validish(cls, f, r, 0) }, { weight: 1, arbitrary: mutant(r) });
    };
    return fc.record({ name: one('name'), description: one('description'), attributes: one('attributes') }, { requiredKeys: [] });
  }

  /** The read-back entity agrees with what was sent on `fields` (absent/empty are the same: TTS omits empty values). */
  function expectSame(sent: Fields, got: Record<string, unknown>, where: string): void {
    const norm = (v: unknown) =>
      v === undefined || v === null || v === '' || (typeof v === 'object' && Object.keys(v as object).length === 0) ? undefined : v;
    for (const f of Object.keys(sent) as Array<keyof Fields>) {
      const a = JSON.stringify(norm(sent[f]));
      const b = JSON.stringify(norm(got[f]));
      if (a !== b) throw new Error(`${where}: ${f} sent ${a?.slice(0, 300)}, read back ${b?.slice(0, 300)}`);
    }
  }

  async function roundTrip(o: {
    create: boolean;
    collection: string;
    entity: string;
    wrap: string;
    ids: Record<string, unknown>;
    fields: Fields;
  }): Promise<void> {
    counts.roundTrips++;
    const mask = `field_mask=${FIELDS.join(',')}`;
    const before = await readBack(`${o.entity}?${mask}`);
    const body = o.create ? { [o.wrap]: { ids: o.ids, ...o.fields } } : { [o.wrap]: { ids: o.ids, ...o.fields }, field_mask: { paths: Object.keys(o.fields) } };
    const s: Sent = {
      method: o.create ? 'POST' : 'PUT',
      path: o.create ? o.collection : o.entity,
      headers: { ...admin(), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    };
    counts.requests++;
    const a = await send(s);
    checkAnswer(RPCS['EndDeviceRegistry.Create'] as RpcDefinition, s, a);
    const after = await readBack(`${o.entity}?${mask}`);
    if (a.status === 200) {
      if (after.status !== 200) throw new Error(`${s.method} ${s.path} accepted ${s.body} but GET answered ${after.status}`);
      expectSame(o.fields, JSON.parse(after.json) as Record<string, unknown>, `${s.method} ${s.path} ${s.body?.slice(0, 500)}`);
    } else if (after.status !== before.status || after.json !== before.json) {
      throw new Error(`${s.method} ${s.path} refused (${a.status} ${a.text.slice(0, 300)}) but stored something: ${after.status} ${after.json.slice(0, 500)}`);
    }
  }

  const roundTripProperty = (run: (id: string, fields: Fields, create: boolean) => Promise<void>, cls: typeof Application | typeof EndDevice, offset: number) =>
    fc.assert(
      fc.asyncProperty(fieldsArb(cls), fc.boolean(), async (fields, create) => run(uid('fz-rt'), fields, create)),
      { seed: FUZZ_SEED + offset, numRuns: FUZZ_RUNS * 4, interruptAfterTimeLimit: budgetPerBinding * 2, markInterruptAsFailure: false, endOnFailure: true },
    );

  it('applications: an accepted Create/Update reads back equal on name, description, attributes; a refused one stores nothing', async () => {
    await roundTripProperty(
      (id, fields, create) =>
        roundTrip({
          create,
          collection: `/api/v3/users/${ADMIN_USER_ID}/applications`,
          entity: `/api/v3/applications/${create ? id : app}`,
          wrap: 'application',
          ids: { application_id: create ? id : app },
          fields,
        }),
      Application,
      10_001,
    );
    await expectAlive(stack);
  });

  it('IS end devices: an accepted Create/Update reads back equal on name, description, attributes; a refused one stores nothing', async () => {
    await roundTripProperty(
      (id, fields, create) =>
        roundTrip({
          create,
          collection: `/api/v3/applications/${app}/devices`,
          entity: `/api/v3/applications/${app}/devices/${create ? id : device}`,
          wrap: 'end_device',
          ids: { device_id: create ? id : device, application_ids: { application_id: app } },
          fields,
        }),
      EndDevice,
      20_001,
    );
    await expectAlive(stack);
  });
});
