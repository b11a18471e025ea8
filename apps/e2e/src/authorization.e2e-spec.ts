/**
 * The authorization matrix, generated from the RPC table (`RPCS`): every HTTP binding of every
 * RPC × every kind of credential (none, wrong scheme, malformed, unknown, wrong secret, expired,
 * another entity's key, a key of another kind, a key missing exactly the RPC's rights, a non-admin
 * key on admin-only RPCs, the right key), plus the field-mask rights (`maskRights`) of the
 * registries, in both run modes. A new route in the table is covered without touching this file
 * (unless it needs a request body or path variable this file cannot build: then the test says so).
 * The rights entity of a binding is the one its path names (`rightsTarget`): an organization's
 * routes of a user's RPC (`POST /organizations/{…}/applications`, `orEntity`) are checked on the
 * organization, with the organization rights the table gives them. A binding naming an RPC's
 * `orEntityByHandler` (an organization taken off an application by its members) is left to the
 * handler, which answers the same errors for the RPC's entity.
 * Streaming RPCs (`POST /events`) name their entities in the request body: the matrix streams the
 * fixture application; a refusal is the stream's error answer (`{"error":…}` + delimiter, its
 * status), the right key gets status 200 and the `events.stream.start` event first.
 * Rules: wire contract §1.3 (Unauthenticated / Permission denied), §5 and §7.2.
 */
import { randomBytes } from 'node:crypto';
import {
  ALLOWED_PATHS,
  type EntityKind,
  type HttpBinding,
  impliedRights,
  type Right,
  rightsOfKind,
  rightsTarget,
  RPCS,
  type RpcDefinition,
} from '@lorawan/api';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import {
  Access,
  ADMIN,
  auth,
  bearer,
  COLLECTION,
  type CreatedKey,
  expectHttp,
  freshId,
  type Kind,
  KINDS,
  MALFORMED_TOKENS,
  missingOf,
  randomBase32,
  randomEui,
  randomKeyId,
  unknownToken,
  wrongSecretToken,
} from './access';
import { otaaIds, type Registry, sampleDevice } from './devices';
import { EventStream } from './event-stream';
import { Api, type ApiResponse, type CallOptions, expectTtsError } from './http-client';

/** Short, so that the expired key is not served from a resolution remembered before it expired. */
const ENV = { AUTH_CACHE_TTL_MS: '200' };
/** Every component an RPC of the table belongs to runs as its own process in distributed mode. */
const COMPONENTS = [...new Set(Object.values(RPCS).map((r) => (r as RpcDefinition).component))];

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: COMPONENTS, env: ENV })],
  ['embedded', () => startEmbeddedStack({ env: ENV })],
];

// ------------------------------------------------------------------------------------------------
// Fixtures: per kind, the entity the requests are about and another one of the same kind.

/**
 * The kinds of rights entities the matrix has fixtures for: those with API keys (the admin creates
 * the organizations, so it is their member with all rights and gives their keys any organization
 * right), and OAuth clients.
 * A client has no API keys of its own, and only a user itself can put rights of other kinds on its
 * keys: a key "of" the main client (and of scratch clients) is a key of the admin user, which
 * registered them, holding the client rights the case calls for; a key "of" the other client is a
 * key of the non-admin user owning it, holding user rights only (so, none on the main client).
 * Admin-only RPCs on clients thus see an admin's key missing rights: insufficient, not no_admin.
 */
type MatrixKind = Kind | 'client';
const MATRIX_KINDS: readonly MatrixKind[] = [...KINDS, 'client'];
const MAIN: Record<MatrixKind, string> = { application: 'authz-app', gateway: 'authz-gtw', user: 'authz-user', organization: 'authz-org', client: 'authz-cli' };
const OTHER: Record<MatrixKind, string> = {
  application: 'authz-app-other',
  gateway: 'authz-gtw-other',
  user: 'authz-user-other',
  organization: 'authz-org-other',
  client: 'authz-cli-other',
};
/** The users owning the client fixtures; scratch clients belong to the main one's. */
const CLIENT_OWNER = { main: ADMIN, other: 'authz-cli-owner-other' };
const clientOwner = (clientId: string) => (clientId === OTHER.client ? CLIENT_OWNER.other : CLIENT_OWNER.main);
/** Where an entity of each kind is read back. */
const COLLECTION_OF: Record<MatrixKind, string> = { ...COLLECTION, client: 'clients' };
/** Path variables that are not the rights entity: a device and an API key that do not exist. */
const DUMMY_DEVICE = 'authz-no-device';
const DUMMY_KEY_ID = randomKeyId();
/** Collaborators the matrix's collaborator routes name: a user and an organization that do not exist. */
const DUMMY_USER = 'authz-no-user';
const DUMMY_ORGANIZATION = 'authz-no-org';
/** The webhook the matrix's webhook routes name (Set creates it, Get/Delete may find it or not). */
const MATRIX_WEBHOOK_ID = 'authz-webhook';
/** A Pub/Sub to a NATS server that is not there: it is stored, its connection fails (as.pubsub.fail), nothing more. */
const MATRIX_PUBSUB_ID = 'authz-pubsub';

/**
 * The rights a key of `kind` can hold, without the `*_ALL` pseudo-rights: the admin grants keys
 * of other users only rights it holds there, and its universal rights exclude `*_ALL`.
 */
const fullRights = (kind: MatrixKind): Right[] => rightsOfKind(kind).filter((r) => !r.endsWith('_ALL'));

/** Every right of `kind` that neither is nor implies one of `rights` (a key missing exactly `rights`). */
function allBut(kind: MatrixKind, rights: readonly Right[]): Right[] {
  return rightsOfKind(kind).filter((r) => ![...impliedRights([r])].some((i) => rights.includes(i)));
}

const sorted = (rights: readonly string[]) => [...rights].sort();

// ------------------------------------------------------------------------------------------------
// The rows, generated from RPCS.

type CaseName =
  | 'no Authorization'
  | 'scheme not Bearer'
  | 'malformed token'
  | 'unknown key'
  | 'wrong secret'
  | 'expired key'
  | 'key of another entity of the same kind'
  | 'key of an entity of another kind'
  | 'key missing the needed rights'
  | 'non-admin key'
  | 'right key';

const CASES: readonly CaseName[] = [
  'no Authorization',
  'scheme not Bearer',
  'malformed token',
  'unknown key',
  'wrong secret',
  'expired key',
  'key of another entity of the same kind',
  'key of an entity of another kind',
  'key missing the needed rights',
  'non-admin key',
  'right key',
];

/** Which key a case uses: on the main/other/a fresh entity of a kind, with these rights. */
interface KeySpec {
  kind: MatrixKind;
  on: 'main' | 'other' | 'scratch';
  rights: Right[];
  expired?: boolean;
}
const specId = (s: KeySpec) => `${s.kind}|${s.on}|${sorted(s.rights).join(',')}|${s.expired ? 'expired' : ''}`;

type Credential =
  | { type: 'header'; value: string | undefined }
  | { type: 'malformed' }
  | { type: 'unknown' }
  | { type: 'wrong-secret'; spec: KeySpec }
  | { type: 'key'; spec: KeySpec }
  /** The admin key; `scratch`: on a fresh entity of that kind (admin-only deletes). */
  | { type: 'admin'; scratch?: MatrixKind };

type Expectation =
  | { status: number; code: number; namespace: string; name: string; uid?: boolean; missing?: Right[]; missingIncludes?: Right[]; missingExcludes?: Right[] }
  | { authorized: true };

interface Row {
  rpcName: string;
  rpc: RpcDefinition;
  binding: HttpBinding;
  /** The rights entity of this binding (absent when the binding has no path variable for it). */
  kind?: MatrixKind;
  /** The path variable holding the rights entity's ID. */
  entityPath?: string;
  /** The rights needed on the entity: the RPC's, or its `orEntity`'s on an organization's route. */
  rights: Right[];
  title: string;
  /** Why the case does not apply to this binding (such a row is not run; see NOT_APPLICABLE_REASONS). */
  skip?: string;
  credential?: Credential;
  expect?: Expectation;
  /** Field mask paths (Get: `?field_mask=`, Set: body and mask) of a `maskRights` row. */
  mask?: string[];
}

const BOUND: Array<[string, RpcDefinition]> = (Object.entries(RPCS) as Array<[string, RpcDefinition]>).filter(([, rpc]) => rpc.http.length > 0);

/**
 * A stream needs some right on each entity its request names (`identifiers`, not a path
 * variable): the matrix's requests name the fixture application.
 */
const STREAM_ENTITY: Kind = 'application';

/** The rights entity of a binding: its kind, the path variable holding its ID, and the rights needed there. */
interface RightsEntity {
  kind?: MatrixKind;
  path?: string;
  rights: Right[];
}

/**
 * The rights entity of a binding, as the gateway resolves it (`rightsTarget`) for a request that
 * fills exactly the binding's path variables.
 */
function rightsEntityOf(rpcName: string, rpc: RpcDefinition, binding: HttpBinding): RightsEntity {
  if (rpc.stream) return { kind: STREAM_ENTITY, rights: [...rpc.rights] };
  const variables = [...binding.path.matchAll(/\{([a-z0-9_.]+)\}/g)].map((m) => m[1]);
  const request: Record<string, unknown> = {};
  for (const v of variables) setPath(request, v, `value-of-${v}`);
  // A request naming the RPC's `orEntityByHandler` reaches the handler unchecked; the handler answers
  // the guard's errors for `entity` (and lets through who holds the other entity's rights: not a matrix case).
  const target = rightsTarget(rpc, request) ?? (rpc.orEntityByHandler ? rightsTarget({ ...rpc, orEntityByHandler: undefined }, request) : undefined);
  if (!target) return { rights: [...rpc.rights] };
  if (target.id === undefined) {
    if (!target.optional) throw new Error(`${rpcName}: ${binding.verb} ${binding.path} lacks the rights entity {${rpc.entity?.path}}`);
    return { rights: [...target.rights] };
  }
  const path = variables.find((v) => target.id === `value-of-${v}`);
  const kind: EntityKind = target.kind;
  if (!(MATRIX_KINDS as readonly string[]).includes(kind)) throw new Error(`${rpcName}: the matrix has no fixtures for entity kind ${kind}: add them`);
  return { kind: kind as MatrixKind, path, rights: [...target.rights] };
}

const otherKind = (kind: MatrixKind): Kind => (kind === 'application' ? 'gateway' : 'application');

/** A public RPC (TTS's `Configuration`) answers whatever the credential: none, a bad one, or any key. */
function matrixRow(rpcName: string, rpc: RpcDefinition, binding: HttpBinding, c: CaseName): Row {
  const row = caseRow(rpcName, rpc, binding, c);
  return rpc.public && !row.skip ? { ...row, expect: { authorized: true } } : row;
}

function caseRow(rpcName: string, rpc: RpcDefinition, binding: HttpBinding, c: CaseName): Row {
  const { kind, path: entityPath, rights } = rightsEntityOf(rpcName, rpc, binding);
  const row: Row = { rpcName, rpc, binding, kind, entityPath, rights, title: `${c}` };
  const credKind: MatrixKind = kind ?? 'user';
  const full: KeySpec = { kind: credKind, on: 'main', rights: fullRights(credKind) };
  const unauthenticated = (name: string, status = 401, code = 16, namespace = 'pkg/identityserver') => ({ status, code, namespace, name });
  const noAdmin = { status: 403, code: 7, namespace: 'pkg/auth/rights', name: 'no_admin' };
  const noRights = (k: MatrixKind) => ({ status: 403, code: 7, namespace: 'pkg/auth/rights', name: `no_${k}_rights`, uid: true });
  switch (c) {
    case 'no Authorization':
      return { ...row, credential: { type: 'header', value: undefined }, expect: unauthenticated('unauthenticated') };
    case 'scheme not Bearer':
      return {
        ...row,
        credential: { type: 'header', value: `Basic ${Buffer.from('admin:secret').toString('base64')}` },
        expect: unauthenticated('unsupported_authorization'),
      };
    case 'malformed token':
      return { ...row, credential: { type: 'malformed' }, expect: unauthenticated('token', 400, 3, 'pkg/auth') };
    case 'unknown key':
      return { ...row, credential: { type: 'unknown' }, expect: unauthenticated('api_key_not_found') };
    case 'wrong secret':
      return { ...row, credential: { type: 'wrong-secret', spec: full }, expect: unauthenticated('invalid_authorization') };
    case 'expired key':
      return { ...row, credential: { type: 'key', spec: { ...full, expired: true } }, expect: unauthenticated('api_key_expired') };
    case 'key of another entity of the same kind':
      // Not applicable without an entity: the route is about the caller itself (e.g. `GET /applications`, `GET /auth_info`).
      if (!kind) return { ...row, skip: 'the binding names no entity, so there is no other entity to hold a key of' };
      return { ...row, credential: { type: 'key', spec: { kind, on: 'other', rights: fullRights(kind) } }, expect: rpc.adminOnly ? noAdmin : noRights(kind) };
    case 'key of an entity of another kind':
      if (!kind) return { ...row, skip: 'the binding names no entity, so no key can be of another kind than it' };
      return {
        ...row,
        credential: { type: 'key', spec: { kind: otherKind(kind), on: 'main', rights: fullRights(otherKind(kind)) } },
        expect: rpc.adminOnly ? noAdmin : noRights(kind),
      };
    case 'key missing the needed rights':
      // Not applicable without an entity: the handler decides what the caller sees (its own applications, gateways).
      if (!kind) return { ...row, skip: 'the binding names no entity, so no rights on an entity are needed' };
      // No rights needed: "no rights on the entity" is the other-entity case above.
      if (rights.length === 0) return { ...row, skip: 'the RPC needs no specific right; a key with no rights on the entity is the other-entity case' };
      return {
        ...row,
        credential: { type: 'key', spec: { kind, on: 'main', rights: allBut(kind, rights) } },
        // The main client's keys are the admin's (see MatrixKind): past no_admin, short of the rights.
        expect:
          rpc.adminOnly && kind !== 'client'
            ? noAdmin
            : { status: 403, code: 7, namespace: 'pkg/auth/rights', name: `insufficient_${kind}_rights`, uid: true, missing: [...rights] },
      };
    case 'non-admin key':
      if (!rpc.adminOnly) return { ...row, skip: 'not an admin-only RPC' };
      // A non-admin user's key with every user right is not enough (the entity's own keys are the cases above).
      return { ...row, credential: { type: 'key', spec: { kind: 'user', on: 'main', rights: fullRights('user') } }, expect: noAdmin };
    case 'right key': {
      // Deletes run on an entity of their own, so that they leave the shared fixtures alone.
      const on = kind && binding.verb === 'DELETE' ? 'scratch' : 'main';
      if (rpc.adminOnly) return { ...row, credential: { type: 'admin', scratch: on === 'scratch' ? kind : undefined }, expect: { authorized: true } };
      if (!kind) return { ...row, credential: { type: 'key', spec: full }, expect: { authorized: true } };
      return {
        ...row,
        credential: { type: 'key', spec: { kind, on, rights: rights.length > 0 ? [...rights] : fullRights(kind) } },
        expect: { authorized: true },
      };
    }
  }
}

/** `maskRights`: a key with the RPC's rights but not the mask's, a mask naming the guarded paths → insufficient. */
function maskRows(rpcName: string, rpc: RpcDefinition, binding: HttpBinding): Row[] {
  const { kind, path: entityPath, rights } = rightsEntityOf(rpcName, rpc, binding);
  const rows: Row[] = [];
  // A batch Set's requests are its registry's Sets, with their allowed paths.
  const allowed = (ALLOWED_PATHS as Record<string, ReadonlySet<string>>)[rpcName.replace('EndDeviceBatchRegistry', 'EndDeviceRegistry')];
  const allMaskRights = [...new Set((rpc.maskRights ?? []).flatMap((m) => m.rights))];
  /** Masks already tried with every mask right (two rules can share a parent path such as `session`). */
  const granted = new Set<string>();
  for (const rule of rpc.maskRights ?? []) {
    const base: Row = { rpcName, rpc, binding, kind, entityPath, rights, title: `mask [${rule.paths[0]}…] without ${rule.rights.join('+')}` };
    if (!kind) {
      rows.push({ ...base, skip: 'mask rights need an entity' });
      continue;
    }
    // The shortest guarded path the RPC allows (`session.keys.f_nwk_s_int_key.key` rather than one inside a MAC state, whose
    // body needs a whole MAC state); where it allows none (the IS holds no keys), the shortest all the same: the rights are
    // checked before the paths, so the mask is refused without the right and reaches the registry's path check with it.
    const byLength = [...rule.paths].sort((a, b) => a.split('.').length - b.split('.').length);
    const path = byLength.find((p) => allowed?.has(p)) ?? byLength[0];
    const parts = path.split('.');
    // Get: the path and each allowed parent (`root_keys`, `session`, `session.keys`); Set: the path (its value is in the body).
    const parents = parts.map((_, i) => parts.slice(0, i + 1).join('.')).filter((p) => !allowed || allowed.has(p));
    const variants = binding.body || parents.length === 0 ? [path] : parents;
    for (const p of variants) {
      rows.push({
        ...base,
        title: `mask [${p}] with ${rights.join('+')} but not ${rule.rights.join('+')}`,
        mask: [p],
        credential: { type: 'key', spec: { kind, on: 'main', rights: [...rights] } },
        expect: {
          status: 403,
          code: 7,
          namespace: 'pkg/auth/rights',
          name: `insufficient_${kind}_rights`,
          uid: true,
          missingIncludes: rule.rights,
          missingExcludes: [...rights],
        },
      });
      if (granted.has(p)) continue;
      granted.add(p);
      rows.push({
        ...base,
        title: `mask [${p}] with ${[...rights, ...allMaskRights].join('+')}`,
        mask: [p],
        credential: { type: 'key', spec: { kind, on: 'main', rights: [...new Set([...rights, ...allMaskRights])] } },
        expect: { authorized: true },
      });
    }
  }
  return rows;
}

interface Group {
  title: string;
  rpcName: string;
  binding: HttpBinding;
  rows: Row[];
}

/** One group per binding; deletes last, so that a wrongly granted delete cannot disturb the other rows. */
const GROUPS: Group[] = BOUND.flatMap(([rpcName, rpc]) =>
  rpc.http.map((binding) => ({
    title: `${rpcName} ${binding.verb} ${binding.path}`,
    rpcName,
    binding,
    rows: [...CASES.map((c) => matrixRow(rpcName, rpc, binding, c)), ...maskRows(rpcName, rpc, binding)],
  })),
).sort((a, b) => Number(a.binding.verb === 'DELETE') - Number(b.binding.verb === 'DELETE'));

const ALL_ROWS = GROUPS.flatMap((g) => g.rows);
const RUN_ROWS = ALL_ROWS.filter((r) => !r.skip);
/** Why a case may not apply to a binding (rows carrying one are not run). */
const NOT_APPLICABLE_REASONS = [
  'the binding names no entity, so there is no other entity to hold a key of',
  'the binding names no entity, so no key can be of another kind than it',
  'the binding names no entity, so no rights on an entity are needed',
  'the RPC needs no specific right; a key with no rights on the entity is the other-entity case',
  'not an admin-only RPC',
  'mask rights need an entity',
];

// ------------------------------------------------------------------------------------------------
// Requests

/** The keys the rows use, by `specId`. */
type Keys = Map<string, CreatedKey>;

/** The URL of a binding: path variables filled with the entity's ID and dummy IDs for the rest. */
function urlOf(row: Row, entityId: string, deviceId: string): string {
  const path = row.binding.path.replace(/\{([a-z0-9_.]+)\}/g, (_, v: string) => {
    if (v === row.entityPath) return entityId;
    switch (v.slice(v.lastIndexOf('.') + 1)) {
      case 'device_id':
        return deviceId;
      case 'webhook_id':
        return MATRIX_WEBHOOK_ID;
      case 'pub_sub_id':
        return MATRIX_PUBSUB_ID;
      case 'f_port':
        return '200';
      case 'type':
        return 'uplink_message';
      case 'key_id':
      case 'id':
        return DUMMY_KEY_ID;
      case 'application_id':
        return MAIN.application;
      case 'gateway_id':
        return MAIN.gateway;
      case 'user_id':
        return MAIN.user;
      case 'organization_id':
        // A collaborator organization that does not exist: the IS refuses the request once it is authorized.
        return DUMMY_ORGANIZATION;
      default:
        throw new Error(`authorization matrix: no value for path variable {${v}} of ${row.rpcName}: teach urlOf`);
    }
  });
  // Batch routes without a body name their devices in the query (TTS's `device_ids`).
  const query = [
    ...(row.binding.path.endsWith('/devices/batch') && !row.binding.body ? [`device_ids=${deviceId}`] : []),
    ...(row.mask && !row.binding.body ? [`field_mask=${row.mask.join(',')}`] : []),
  ];
  return `/api/v3${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}

/** A value for a key path in a Set body. */
function keyPathValue(path: string): unknown {
  if (path.endsWith('.key')) return randomBytes(16).toString('hex').toUpperCase();
  if (path.endsWith('session_key_id')) return 'AQID';
  return 'root-key-1';
}

/** A value for a path of a `Secret` field (`lbs_lns_secret`, `lbs_lns_secret.value`, …). */
function secretPathValue(path: string): unknown {
  const value = Buffer.from('matrix secret').toString('base64');
  return path.endsWith('.value') ? value : path.endsWith('.key_id') ? 'matrix' : { value };
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = target;
  for (const p of parts.slice(0, -1)) {
    if (typeof cur[p] !== 'object' || cur[p] === null) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
}

/**
 * A valid request body for body routes (components validate a request before checking rights, so
 * an invalid one would answer 400 where 403 is expected). Unknown RPCs get `{}`.
 */
function bodyOf(row: Row, deviceId: string, entityId: string): unknown {
  if (row.binding.body !== '*') return undefined;
  const { rpcName, rpc } = row;
  // A mask row's guarded paths (an entity's `Secret` fields) are written too, with a value.
  const rename = (entity: string) => {
    const renamed: Record<string, unknown> = { ids: {}, name: 'renamed by the matrix' };
    for (const p of row.mask ?? []) setPath(renamed, p, secretPathValue(p));
    return { [entity]: renamed, field_mask: { paths: ['name', ...(row.mask ?? [])] } };
  };
  if (rpc.stream) return { identifiers: [{ [`${STREAM_ENTITY}_ids`]: { [`${STREAM_ENTITY}_id`]: entityId } }] };
  switch (rpcName) {
    case 'EndDeviceRegistry.Create':
      return { end_device: { ids: otaaIds(deviceId) } };
    // The IS's batch Create (our extension): the same device as its only one.
    case 'EndDeviceBatchRegistry.Create':
      return { end_devices: [{ ids: { ...otaaIds(deviceId), application_ids: { application_id: entityId } } }] };
    case 'EndDeviceRegistry.Update': {
      const device: Record<string, unknown> = { ids: { device_id: deviceId }, name: 'renamed by the matrix' };
      for (const p of row.mask ?? []) setPath(device, p, keyPathValue(p));
      return { end_device: device, field_mask: { paths: ['name', ...(row.mask ?? [])] } };
    }
    case 'UserRegistry.Create': {
      const id = freshId('authz-new-user');
      return { user: { ids: { user_id: id }, primary_email_address: `${id}@example.com`, password: `Pw-${randomBase32(16)}-9`, state: 'STATE_APPROVED' } };
    }
    case 'UserRegistry.Update':
      return rename('user');
    case 'ApplicationRegistry.Create':
      return { application: { ids: { application_id: freshId('authz-new-app') } } };
    case 'ApplicationRegistry.Update':
      return rename('application');
    case 'GatewayRegistry.Create':
      return { gateway: { ids: { gateway_id: freshId('authz-new-gtw'), eui: randomEui() }, frequency_plan_id: 'EU_863_870' } };
    case 'GatewayRegistry.Update':
      return rename('gateway');
    case 'ClientRegistry.Create':
      return { client: { ids: { client_id: freshId('authz-new-cli') } } };
    case 'ClientRegistry.Update':
      return rename('client');
    case 'OrganizationRegistry.Create':
      return { organization: { ids: { organization_id: freshId('authz-new-org') } } };
    case 'OrganizationRegistry.Update':
      return rename('organization');
    case 'ApplicationWebhookRegistry.Set':
      return { webhook: { ids: { webhook_id: MATRIX_WEBHOOK_ID }, base_url: 'https://example.com/matrix' }, field_mask: { paths: ['base_url'] } };
    case 'ApplicationPubSubRegistry.Set':
      return {
        pubsub: { ids: { pub_sub_id: MATRIX_PUBSUB_ID }, nats: { server_url: 'nats://127.0.0.1:9' } },
        field_mask: { paths: ['provider.nats.server_url'] },
      };
    case 'As.SetLink':
      return { link: { skip_payload_crypto: false }, field_mask: { paths: ['skip_payload_crypto'] } };
    case 'AppAs.SimulateUplink':
      // The device does not exist: accepted ({}), dropped by the AS, nothing delivered.
      return { uplink_message: { f_port: 1, frm_payload: 'AQ==' } };
    default:
      break;
  }
  if (rpc.method === 'CreateAPIKey') return { name: 'matrix key', rights: [...row.rights] };
  // A user that does not exist: an authorized request is answered user_not_found and changes no fixture's collaborators.
  if (rpc.method === 'SetCollaborator') return { collaborator: { ids: { user_ids: { user_id: DUMMY_USER } }, rights: [...row.rights] } };
  if (rpc.method === 'UpdateAPIKey') return { api_key: { name: 'renamed by the matrix' }, field_mask: { paths: ['name'] } };
  if (rpc.method === 'Set' && ['js', 'ns', 'as'].includes(rpc.component)) {
    const sample = sampleDevice(rpc.component as Registry, otaaIds(deviceId));
    const device = sample.device as Record<string, unknown>;
    const paths = [...sample.paths];
    for (const p of row.mask ?? []) {
      setPath(device, p, keyPathValue(p));
      paths.push(p);
    }
    const set = { end_device: device, field_mask: { paths } };
    // A registry's batch Set (`<C>EndDeviceBatchRegistry.Set`): the same Set as its only request, its device of the path's application.
    if (rpc.service.endsWith('EndDeviceBatchRegistry'))
      return { requests: [{ ...set, end_device: { ...device, ids: { ...(device.ids as object), application_ids: { application_id: entityId } } } }] };
    return set;
  }
  return {};
}

function expectAuthorized(res: ApiResponse, what: string, stream?: boolean): void {
  if (stream) {
    // The stream started: status 200 and its first message the start event.
    if (res.status !== 200 || res.json?.result?.name !== 'events.stream.start') {
      throw new Error(`${what}: expected HTTP 200 and the events.stream.start event first, got HTTP ${res.status}: ${res.text.slice(0, 1500)}`);
    }
    return;
  }
  const ns = res.json?.details?.[0]?.namespace as string | undefined;
  const ok = [200, 400, 404, 409].includes(res.status) && ns !== 'pkg/auth' && ns !== 'pkg/auth/rights';
  if (!ok)
    throw new Error(`${what}: expected the request to pass authorization (200/400/404/409, no auth error), got HTTP ${res.status}: ${res.text.slice(0, 1500)}`);
}

// ------------------------------------------------------------------------------------------------

describe('authorization matrix (generated from RPCS)', () => {
  it('is non-empty and covers every HTTP binding of every bound RPC', () => {
    const bound = BOUND.map(([n]) => n);
    expect(bound.length).toBeGreaterThan(0);
    expect(RUN_ROWS.length).toBeGreaterThan(0);
    // Every RPC with HTTP bindings has rows, for every one of its bindings and every case.
    expect(sorted([...new Set(ALL_ROWS.map((r) => r.rpcName))])).toEqual(sorted(bound));
    const bindings = BOUND.reduce((n, [, rpc]) => n + rpc.http.length, 0);
    expect(GROUPS).toHaveLength(bindings);
    for (const g of GROUPS) expect(g.rows.filter((r) => !r.mask).map((r) => r.title)).toEqual([...CASES]);
    // Unauthenticated (internal) RPCs have no HTTP binding, so nothing is left out by skipping them.
    for (const [name, rpc] of Object.entries(RPCS) as Array<[string, RpcDefinition]>) {
      if (rpc.unauthenticated) expect({ name, bindings: rpc.http.length }).toEqual({ name, bindings: 0 });
    }
    // An organization's route of a user's RPC (`orEntity`) is checked on the organization, with the organization's rights.
    const orRows = ALL_ROWS.filter((r) => r.rpc.orEntity && r.binding.path.includes(`{${r.rpc.orEntity.path}}`));
    expect(orRows.length).toBeGreaterThan(0);
    for (const r of orRows) {
      expect({ rpc: r.rpcName, kind: r.kind, path: r.entityPath, rights: r.rights }).toEqual({
        rpc: r.rpcName,
        kind: r.rpc.orEntity?.kind,
        path: r.rpc.orEntity?.path,
        rights: r.rpc.orEntity?.rights,
      });
    }
    // Each mask rule of each bound RPC has rows.
    for (const [name, rpc] of BOUND) {
      for (const rule of rpc.maskRights ?? []) expect(ALL_ROWS.some((r) => r.rpcName === name && r.title.includes(rule.rights.join('+')))).toBe(true);
    }
    // A case left out of a binding says why, in a closed list of reasons (no silent gaps).
    const reasons = new Set(ALL_ROWS.filter((r) => r.skip).map((r) => r.skip as string));
    expect([...reasons].every((r) => NOT_APPLICABLE_REASONS.some((known) => r === known))).toBe(true);
    // The numbers, for the report.
    console.log(
      `authorization matrix: ${bound.length} RPCs, ${bindings} bindings, ${CASES.length} cases, ${ALL_ROWS.length} rows (${RUN_ROWS.length} run, ${ALL_ROWS.length - RUN_ROWS.length} not applicable) × ${MODES.length} modes`,
    );
  });
});

describe.each(MODES)('authorization matrix (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const access = new Access(api);
  const keys: Keys = new Map();
  let expiresAt = 0;

  beforeAll(async () => {
    stack = await start();
    await access.createUser(CLIENT_OWNER.other);
    for (const kind of MATRIX_KINDS) {
      await createEntity(kind, MAIN[kind]);
      await createEntity(kind, OTHER[kind]);
    }
    // Expired keys first (never used before they expire), then every other key the rows use.
    const specs = new Map<string, KeySpec>();
    for (const row of RUN_ROWS) {
      const c = row.credential;
      if (c && (c.type === 'key' || c.type === 'wrong-secret') && c.spec.on !== 'scratch') specs.set(specId(c.spec), c.spec);
    }
    const expiring = [...specs.values()].filter((s) => s.expired);
    expiresAt = Date.now() + 2500;
    for (const s of expiring)
      keys.set(specId(s), await createKey(s.kind, MAIN[s.kind], s.rights, { expiresAt: new Date(expiresAt).toISOString(), name: 'expiring' }));
    for (const s of specs.values()) {
      if (!s.expired) keys.set(specId(s), await createKey(s.kind, (s.on === 'other' ? OTHER : MAIN)[s.kind], s.rights));
    }
    const wait = expiresAt + 500 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** A fixture entity (a client: the admin registers it for its owner). */
  async function createEntity(kind: MatrixKind, id: string): Promise<void> {
    if (kind !== 'client') {
      await access.createEntity(kind, id);
      return;
    }
    const res = await api.post(`/api/v3/users/${clientOwner(id)}/clients`, { client: { ids: { client_id: id } } });
    expectHttp(res, 200, `create client ${id}`);
  }

  /** A key on an entity; on a client, its owner's user key (see MatrixKind). */
  function createKey(kind: MatrixKind, id: string, rights: readonly Right[], options?: { expiresAt?: string; name?: string }): Promise<CreatedKey> {
    if (kind !== 'client') return access.createKey(kind, id, rights, options);
    const owner = clientOwner(id);
    return access.createKey('user', owner, owner === CLIENT_OWNER.other ? fullRights('user') : rights, options);
  }

  /** The key of a spec; `scratch`: a fresh entity of the kind and a key on it. */
  async function keyOf(spec: KeySpec): Promise<{ key: CreatedKey; entityId: string }> {
    if (spec.on === 'scratch') {
      const id = freshId(`authz-${spec.kind.slice(0, 3)}`);
      await createEntity(spec.kind, id);
      return { key: await createKey(spec.kind, id, spec.rights), entityId: id };
    }
    const key = keys.get(specId(spec));
    if (!key) throw new Error(`no key for ${specId(spec)}`);
    return { key, entityId: (spec.on === 'other' ? OTHER : MAIN)[spec.kind] };
  }

  async function send(row: Row, options: CallOptions, entityId: string): Promise<ApiResponse> {
    const deviceId = row.rpc.method === 'Set' || row.rpcName === 'EndDeviceRegistry.Create' ? freshId('authz-dev') : DUMMY_DEVICE;
    if (row.rpc.stream) return sendStream(row, options, bodyOf(row, deviceId, entityId));
    return api.call(row.binding.verb, urlOf(row, entityId, deviceId), { ...options, body: bodyOf(row, deviceId, entityId) });
  }

  /**
   * A streaming request as a response the rows can check: a refusal must be `{"error":<Status>}`
   * and the delimiter (its Status is the `json`); a started stream gives its first message as
   * `json` and is dropped at once.
   */
  async function sendStream(row: Row, options: CallOptions, body: unknown): Promise<ApiResponse> {
    if (row.binding.verb !== 'POST' || row.binding.path !== '/events')
      throw new Error(`authorization matrix: teach sendStream ${row.binding.verb} ${row.binding.path}`);
    const authorization = Object.entries(options.headers ?? {}).find(([h]) => h.toLowerCase() === 'authorization')?.[1];
    const started = Date.now();
    const s = await EventStream.open(stack.baseUrl, { authorization, body });
    const headers = new Headers(
      Object.entries(s.headers).flatMap(([k, v]) => (v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v] as [string, string]])),
    );
    try {
      if (s.status === 200) {
        const first = await s.next();
        return { status: s.status, headers, text: JSON.stringify(first), json: first, ms: Date.now() - started };
      }
      if (s.status >= 500 && s.status !== 501) api.serverErrors.push(`POST /api/v3/events → ${s.status} ${s.text}`);
      const error = s.json?.error;
      if (!error || !s.text.endsWith('}\n'))
        throw new Error(`POST /api/v3/events: expected {"error":…} and a newline, got HTTP ${s.status}: ${JSON.stringify(s.text.slice(0, 1500))}`);
      return { status: s.status, headers, text: s.text, json: error, ms: Date.now() - started };
    } finally {
      s.close();
    }
  }

  /** The requests of a row: one per credential it tries (all malformed tokens for the malformed case). */
  async function requests(row: Row): Promise<Array<{ res: ApiResponse; entityId: string; what: string }>> {
    const c = row.credential;
    if (!c) throw new Error(`${row.title}: no credential`);
    const main = row.kind ? MAIN[row.kind] : '';
    const what = (extra = '') => `${mode}: ${row.rpcName} ${row.binding.verb} ${row.binding.path} [${row.title}]${extra}`;
    switch (c.type) {
      case 'header':
        return [{ res: await send(row, auth(c.value), main), entityId: main, what: what() }];
      case 'malformed':
        return Promise.all(MALFORMED_TOKENS.map(async (t) => ({ res: await send(row, bearer(t), main), entityId: main, what: what(` token ${t}`) })));
      case 'unknown':
        return [{ res: await send(row, bearer(unknownToken()), main), entityId: main, what: what() }];
      case 'admin': {
        const target = c.scratch ? freshId(`authz-${c.scratch.slice(0, 3)}`) : main;
        if (c.scratch) await createEntity(c.scratch, target);
        return [{ res: await send(row, bearer(stack.adminKey), target), entityId: target, what: what() }];
      }
      case 'wrong-secret': {
        const { key } = await keyOf(c.spec);
        return [{ res: await send(row, bearer(wrongSecretToken(key.id)), main), entityId: main, what: what() }];
      }
      case 'key': {
        if (c.spec.expired && Date.now() <= expiresAt) throw new Error('the expired key has not expired yet');
        const { key, entityId } = await keyOf(c.spec);
        const target = c.spec.on === 'scratch' ? entityId : main;
        return [{ res: await send(row, bearer(key.token), target), entityId: target, what: what() }];
      }
    }
  }

  for (const group of GROUPS) {
    describe(group.title, () => {
      for (const row of group.rows) {
        // A case that does not apply to this binding has no test; the coverage test above checks it carries its reason.
        if (row.skip) continue;
        it(row.title, async () => {
          const e = row.expect;
          if (!e) throw new Error(`${row.title}: no expectation`);
          for (const { res, entityId, what } of await requests(row)) {
            if ('authorized' in e) {
              expectAuthorized(res, what, row.rpc.stream);
              continue;
            }
            try {
              expectTtsError(res, e.status, e.code, e.namespace, e.name, e.uid ? { uid: entityId } : undefined);
              // grpc-gateway names an Unauthenticated error in WWW-Authenticate too (wire contract §1.1).
              if (e.code === 16) expect(res.headers.get('www-authenticate') ?? '').toContain(`${e.namespace}:${e.name}`);
              if (e.missing) expect(missingOf(res)).toEqual(sorted(e.missing));
              if (e.missingIncludes) expect(missingOf(res)).toEqual(expect.arrayContaining(e.missingIncludes));
              for (const r of e.missingExcludes ?? []) expect(missingOf(res)).not.toContain(r);
            } catch (err) {
              throw new Error(
                `${what}: expected HTTP ${e.status} ${e.namespace}:${e.name}${e.missing ? ` missing [${e.missing.join(', ')}]` : ''}, got HTTP ${res.status}: ${res.text.slice(0, 1500)}\n${(err as Error).message}`,
              );
            }
          }
        });
      }
    });
  }

  it('answered no request with a 5xx', () => {
    expect(api.serverErrors).toEqual([]);
  });

  it(`kept the fixtures of every kind (${Object.values(COLLECTION_OF).join(', ')}) apart from the scratch entities`, async () => {
    for (const kind of MATRIX_KINDS) {
      for (const id of [MAIN[kind], OTHER[kind]]) {
        const res = await api.get(`/api/v3/${COLLECTION_OF[kind]}/${id}`);
        if (res.status !== 200) throw new Error(`${mode}: ${kind} ${id} is gone after the matrix: HTTP ${res.status} ${res.text.slice(0, 500)}`);
      }
    }
  });
});
