import { decodeMessage } from '../validation/decode';
import { BatchDeleteEndDevicesRequest, BatchSetEndDevicesRequest, GetEndDeviceRequest, SetEndDeviceRequest } from '../messages/end-device-requests';
import { ALLOWED_PATHS, KEY_PATHS } from '../field-mask/allowed-paths';
import type { RpcDefinition } from './define-rpc';
import { RPCS, entityIdOf, healthSubject, requiredRights, rightsTarget, type RpcName } from './rpc-table';
import { Right } from './rights';

const {
  RIGHT_APPLICATION_DEVICES_READ: READ,
  RIGHT_APPLICATION_DEVICES_WRITE: WRITE,
  RIGHT_APPLICATION_DEVICES_READ_KEYS: READ_KEYS,
  RIGHT_APPLICATION_DEVICES_WRITE_KEYS: WRITE_KEYS,
  RIGHT_APPLICATION_TRAFFIC_READ: TRAFFIC_READ,
} = Right;

const entries = Object.entries(RPCS) as [RpcName, RpcDefinition][];
const ids = { device_id: 'dev-1', application_ids: { application_id: 'app-1' } };

/** A decoded request with the given field mask (none when `paths` is undefined). */
function request(rpc: RpcName, paths?: string[]): object {
  const mask = paths === undefined ? {} : { field_mask: { paths } };
  if (rpc.endsWith('.Get')) return decodeMessage(GetEndDeviceRequest, { end_device_ids: ids, ...mask });
  return decodeMessage(SetEndDeviceRequest, { end_device: { ids }, ...mask });
}

const sorted = (rights: readonly string[]) => [...rights].sort();

describe('RPC table', () => {
  it.each(entries)('%s: subject is rpc.<component>.<Service>.<Method>', (name, def) => {
    expect(name).toBe(`${def.service}.${def.method}`);
    expect(def.subject).toBe(`rpc.${def.component}.${def.service}.${def.method}`);
    expect(def.subject).toMatch(/^rpc\.(is|js|ns|as|events|gs)\.[A-Z][A-Za-z]+\.[A-Z][A-Za-z]+$/);
  });

  it('has unique subjects and unique HTTP bindings', () => {
    expect(new Set(entries.map(([, d]) => d.subject)).size).toBe(entries.length);
    const bindings = entries.flatMap(([, d]) => d.http.map((h) => `${h.verb} ${h.path.replace(/\{[^}]+\}/g, '{}')}`));
    expect(new Set(bindings).size).toBe(bindings.length);
  });

  it.each(entries)('%s: every path variable is a field path of the request, and writes carry the whole body', (_, def) => {
    for (const binding of def.http) {
      for (const [, variable] of binding.path.matchAll(/\{([^}]+)\}/g)) expect(variable).toMatch(/^[a-z_]+(\.[a-z_]+)*$/);
      expect(binding.body === '*').toBe(binding.verb === 'POST' || binding.verb === 'PUT');
    }
  });

  it('is distinct from the health subjects', () => {
    expect(healthSubject('ns')).toBe('rpc.ns.Health.Check');
    expect(entries.map(([, d]) => d.subject)).not.toContain(healthSubject('ns'));
  });

  it.each([
    ['JsEndDeviceRegistry', 'js'],
    ['NsEndDeviceRegistry', 'ns'],
    ['AsEndDeviceRegistry', 'as'],
  ] as const)('%s: Set (PUT and POST), Get and Delete under /%s', (service, component) => {
    const base = `/${component}/applications`;
    const set = RPCS[`${service}.Set`];
    const get = RPCS[`${service}.Get`];
    const del = RPCS[`${service}.Delete`];
    for (const def of [set, get, del]) {
      expect(def.service).toBe(service);
      expect(def.component).toBe(component);
    }
    expect(set.http).toEqual([
      { verb: 'PUT', path: `${base}/{end_device.ids.application_ids.application_id}/devices/{end_device.ids.device_id}`, body: '*' },
      { verb: 'POST', path: `${base}/{end_device.ids.application_ids.application_id}/devices`, body: '*' },
    ]);
    expect(get.http).toEqual([{ verb: 'GET', path: `${base}/{end_device_ids.application_ids.application_id}/devices/{end_device_ids.device_id}` }]);
    expect(del.http).toEqual([{ verb: 'DELETE', path: `${base}/{application_ids.application_id}/devices/{device_id}` }]);
    expect(set.request).toBe(SetEndDeviceRequest);
    expect(get.request).toBe(GetEndDeviceRequest);
    expect(set.rights).toEqual([WRITE]);
    expect(get.rights).toEqual([READ]);
    expect(del.rights).toEqual([WRITE]);
  });

  it.each([
    ['JsEndDeviceBatchRegistry', 'js'],
    ['NsEndDeviceBatchRegistry', 'ns'],
    ['AsEndDeviceBatchRegistry', 'as'],
  ] as const)('%s: TTS’s Delete and our Set under /%s/applications/{id}/devices/batch, DEVICES_WRITE', (service, component) => {
    const path = `/${component}/applications/{application_ids.application_id}/devices/batch`;
    const set = RPCS[`${service}.Set`];
    const del = RPCS[`${service}.Delete`];
    expect(set).toMatchObject({ service, component, http: [{ verb: 'PUT', path, body: '*' }], rights: [WRITE], fieldMasksAt: 'requests' });
    expect(set.request).toBe(BatchSetEndDevicesRequest);
    expect(set.maskRights).toEqual(RPCS[`${service.replace('Batch', '')}.Set` as RpcName].maskRights);
    expect(del).toMatchObject({ service, component, http: [{ verb: 'DELETE', path }], rights: [WRITE] });
    expect(del.request).toBe(BatchDeleteEndDevicesRequest);
    expect(entityIdOf(del, { application_ids: { application_id: 'app-1' }, device_ids: ['a'] })).toBe('app-1');
  });

  it.each([
    ['ApplicationAccess', 'applications', 'application_ids.application_id', Right.RIGHT_APPLICATION_SETTINGS_COLLABORATORS, 'collaborator', true],
    ['GatewayAccess', 'gateways', 'gateway_ids.gateway_id', Right.RIGHT_GATEWAY_SETTINGS_COLLABORATORS, 'collaborators', true],
    ['ClientAccess', 'clients', 'client_ids.client_id', Right.RIGHT_CLIENT_SETTINGS_COLLABORATORS, 'collaborators', true],
    // An organization's collaborators are its members: users only.
    ['OrganizationAccess', 'organizations', 'organization_ids.organization_id', Right.RIGHT_ORGANIZATION_SETTINGS_MEMBERS, 'collaborators', false],
  ] as const)('%s: the collaborator RPCs as TTS binds them', (service, collection, idField, right, deleteSegment, organizations) => {
    const base = `/${collection}/{${idField}}`;
    const list = RPCS[`${service}.ListCollaborators`];
    const get = RPCS[`${service}.GetCollaborator`];
    const set = RPCS[`${service}.SetCollaborator`];
    const del = RPCS[`${service}.DeleteCollaborator`];
    expect(list.http).toEqual([{ verb: 'GET', path: `${base}/collaborators` }]);
    expect(get.http).toEqual([
      { verb: 'GET', path: `${base}/collaborator/user/{collaborator.user_ids.user_id}` },
      ...(organizations ? [{ verb: 'GET', path: `${base}/collaborator/organization/{collaborator.organization_ids.organization_id}` }] : []),
    ]);
    expect(set.http).toEqual([{ verb: 'PUT', path: `${base}/collaborators`, body: '*' }]);
    expect(del.http).toEqual([
      { verb: 'DELETE', path: `${base}/${deleteSegment}/user/{collaborator_ids.user_ids.user_id}` },
      ...(organizations ? [{ verb: 'DELETE', path: `${base}/${deleteSegment}/organization/{collaborator_ids.organization_ids.organization_id}` }] : []),
    ]);
    for (const def of [list, get, set, del]) expect(def.entity?.path).toBe(idField);
    // List: some right on the entity (the handler shows rights only to who may manage collaborators).
    expect(list.rights).toEqual([]);
    expect(list.paginated).toBe(true);
    for (const def of [get, set, del]) expect(def.rights).toEqual([right]);
    // Delete of an organization collaborator: who may add the organization may also take it off; the IS decides (both entities).
    const app = { [idField.split('.')[0]]: { [idField.split('.')[1]]: 'ent-1' } };
    const byOrg = { ...app, collaborator_ids: { organization_ids: { organization_id: 'org-1' } } };
    const byUser = { ...app, collaborator_ids: { user_ids: { user_id: 'usr-1' } } };
    if (organizations) {
      expect(del.orEntityByHandler).toEqual({
        kind: 'organization',
        path: 'collaborator_ids.organization_ids.organization_id',
        rights: [Right.RIGHT_ORGANIZATION_ADD_AS_COLLABORATOR],
      });
      expect(rightsTarget(del, byOrg)).toBeUndefined();
    } else expect(del.orEntityByHandler).toBeUndefined();
    expect(rightsTarget(del, byUser)).toMatchObject({ id: 'ent-1', rights: [right] });
    expect(rightsTarget(set, { ...app, collaborator: { ids: byOrg.collaborator_ids } })).toMatchObject({ id: 'ent-1', rights: [right] });
  });

  it('finds the rights entity of each request shape', () => {
    expect(entityIdOf(RPCS['NsEndDeviceRegistry.Get'], request('NsEndDeviceRegistry.Get'))).toBe('app-1');
    expect(entityIdOf(RPCS['NsEndDeviceRegistry.Set'], request('NsEndDeviceRegistry.Set'))).toBe('app-1');
    expect(entityIdOf(RPCS['NsEndDeviceRegistry.Delete'], { application_ids: { application_id: 'app-2' }, device_id: 'dev-1' })).toBe('app-2');
    expect(entityIdOf(RPCS['NsEndDeviceRegistry.Delete'], {})).toBeUndefined();
    expect(entityIdOf(RPCS['ApplicationRegistry.Create'], { collaborator: { user_ids: { user_id: 'usr-1' } } })).toBe('usr-1');
    expect(entityIdOf(RPCS['UserRegistry.List'], {})).toBeUndefined();
  });

  it('checks an organization named as collaborator instead of a user, with the organization’s rights', () => {
    const byOrg = { collaborator: { organization_ids: { organization_id: 'org-1' } } };
    expect(rightsTarget(RPCS['ApplicationRegistry.Create'], byOrg)).toEqual({
      kind: 'organization',
      id: 'org-1',
      optional: false,
      rights: [Right.RIGHT_ORGANIZATION_APPLICATIONS_CREATE],
    });
    expect(requiredRights(RPCS['GatewayRegistry.List'], byOrg)).toEqual([Right.RIGHT_ORGANIZATION_GATEWAYS_LIST]);
    expect(rightsTarget(RPCS['ApplicationRegistry.List'], {})).toEqual({
      kind: 'user',
      id: undefined,
      optional: true,
      rights: [Right.RIGHT_USER_APPLICATIONS_LIST],
    });
    expect(requiredRights(RPCS['ApplicationRegistry.Create'], { collaborator: { user_ids: { user_id: 'u' } } })).toEqual([
      Right.RIGHT_USER_APPLICATIONS_CREATE,
    ]);
  });

  it('binds every HTTP route to an entity, or to the caller itself, or to admins', () => {
    for (const [name, rpc] of Object.entries(RPCS) as [string, RpcDefinition][]) {
      if (rpc.http.length === 0) continue;
      // Streams and batches check rights on each entity they name (entity_rights), in the component.
      // The webhook and Pub/Sub formats are public to every authenticated caller (TTS: no rights check).
      const callerOnly =
        name === 'EntityAccess.AuthInfo' || name === 'ApplicationWebhookRegistry.GetFormats' || name === 'ApplicationPubSubRegistry.GetFormats';
      const bound =
        rpc.entity !== undefined || rpc.entities !== undefined || rpc.adminOnly === true || rpc.stream === true || callerOnly || rpc.public === true;
      expect({ name, bound }).toEqual({ name, bound: true });
      // The entity's ID comes from the path of every binding that is not the "mine" form of an optional entity.
      for (const binding of rpc.http) {
        if (!rpc.entity) continue;
        const inPath = binding.path.includes(`{${rpc.entity.path}}`) || (rpc.orEntity !== undefined && binding.path.includes(`{${rpc.orEntity.path}}`));
        expect({ name, path: binding.path, inPath: inPath || rpc.entity.optional === true }).toEqual({ name, path: binding.path, inPath: true });
      }
    }
  });
});

describe('public RPCs', () => {
  it("are only TTS's Configuration service: reads of the stack's configuration, no entity, no rights", () => {
    const open = (Object.values(RPCS) as RpcDefinition[]).filter((rpc) => rpc.public);
    expect(open.map((rpc) => rpc.name)).toEqual(['Configuration.ListFrequencyPlans']);
    for (const rpc of open) {
      expect([rpc.entity, rpc.rights, rpc.maskRights, rpc.http.map((b) => b.verb)]).toEqual([undefined, [], undefined, ['GET']]);
    }
    expect(RPCS['Configuration.ListFrequencyPlans'].http).toEqual([{ verb: 'GET', path: '/configuration/frequency-plans' }]);
  });
});

describe('requiredRights', () => {
  it.each([
    // Join Server: the root keys.
    ['JsEndDeviceRegistry.Get', ['root_keys'], [READ, READ_KEYS]],
    ['JsEndDeviceRegistry.Get', ['root_keys.app_key'], [READ, READ_KEYS]],
    ['JsEndDeviceRegistry.Get', ['root_keys.nwk_key.key'], [READ, READ_KEYS]],
    ['JsEndDeviceRegistry.Get', ['root_keys.root_key_id'], [READ]],
    ['JsEndDeviceRegistry.Get', ['root_keys.app_key.kek_label', 'network_server_address'], [READ]],
    ['JsEndDeviceRegistry.Set', ['root_keys.app_key.key'], [WRITE, WRITE_KEYS]],
    ['JsEndDeviceRegistry.Set', ['resets_join_nonces'], [WRITE]],
    // Network Server: the network session keys and the downlink queue.
    ['NsEndDeviceRegistry.Get', ['session'], [READ, READ_KEYS, TRAFFIC_READ]],
    ['NsEndDeviceRegistry.Get', ['session.keys'], [READ, READ_KEYS]],
    ['NsEndDeviceRegistry.Get', ['pending_session.keys.nwk_s_enc_key.key'], [READ, READ_KEYS]],
    ['NsEndDeviceRegistry.Get', ['session.queued_application_downlinks'], [READ, TRAFFIC_READ]],
    ['NsEndDeviceRegistry.Get', ['session.dev_addr', 'session.last_f_cnt_up', 'mac_settings', 'mac_state.device_class'], [READ]],
    // A MAC state may hold a queued join-accept with its session keys (TTS).
    ['NsEndDeviceRegistry.Get', ['pending_mac_state'], [READ, READ_KEYS]],
    ['NsEndDeviceRegistry.Get', ['mac_state.queued_join_accept.keys'], [READ, READ_KEYS]],
    ['NsEndDeviceRegistry.Get', ['pending_mac_state.queued_join_accept.keys.session_key_id', 'pending_mac_state.queued_join_accept.payload'], [READ]],
    ['NsEndDeviceRegistry.Set', ['pending_mac_state'], [WRITE, WRITE_KEYS]],
    ['NsEndDeviceRegistry.Set', ['pending_mac_state.queued_join_accept.keys.session_key_id'], [WRITE, WRITE_KEYS]],
    ['NsEndDeviceRegistry.Set', ['session.keys.session_key_id'], [WRITE, WRITE_KEYS]],
    ['NsEndDeviceRegistry.Set', ['session.dev_addr', 'mac_settings.rx1_delay'], [WRITE]],
    // Application Server: the application session key and the downlink queue.
    ['AsEndDeviceRegistry.Set', ['session.keys.app_s_key.key'], [WRITE, WRITE_KEYS]],
    ['AsEndDeviceRegistry.Set', ['formatters'], [WRITE]],
    ['AsEndDeviceRegistry.Get', ['session'], [READ, READ_KEYS, TRAFFIC_READ]],
    ['AsEndDeviceRegistry.Get', ['pending_session.keys.app_s_key'], [READ, READ_KEYS]],
    ['AsEndDeviceRegistry.Get', ['queued_application_downlinks'], [READ, TRAFFIC_READ]],
    ['AsEndDeviceRegistry.Get', ['formatters', 'session.dev_addr'], [READ]],
    // An empty mask asks for nothing beyond the base rights.
    ['NsEndDeviceRegistry.Get', [], [READ]],
  ] as [RpcName, string[], Right[]][])('%s with %j needs %j', (rpc, paths, rights) => {
    expect(sorted(requiredRights(RPCS[rpc], request(rpc, paths)))).toEqual(sorted(rights));
  });

  it('a batch Set needs the union of its requests’ mask rights', () => {
    const batch = (...masks: string[][]) =>
      decodeMessage(BatchSetEndDevicesRequest, {
        application_ids: { application_id: 'app-1' },
        requests: masks.map((paths) => ({ end_device: { ids }, field_mask: { paths } })),
      });
    expect(requiredRights(RPCS['NsEndDeviceBatchRegistry.Set'], batch(['mac_settings'], ['supports_join']))).toEqual([WRITE]);
    expect(sorted(requiredRights(RPCS['NsEndDeviceBatchRegistry.Set'], batch(['mac_settings'], ['session.keys.f_nwk_s_int_key.key'])))).toEqual(
      sorted([WRITE, WRITE_KEYS]),
    );
    expect(sorted(requiredRights(RPCS['JsEndDeviceBatchRegistry.Set'], batch(['resets_join_nonces'], [], ['root_keys'])))).toEqual(sorted([WRITE, WRITE_KEYS]));
    expect(requiredRights(RPCS['AsEndDeviceBatchRegistry.Set'], batch(['formatters']))).toEqual([WRITE]);
    // The items' masks only: a top-level mask (not part of the message) asks for nothing.
    expect(requiredRights(RPCS['AsEndDeviceBatchRegistry.Set'], { field_mask: { paths: ['session.keys.app_s_key.key'] }, requests: [] })).toEqual([WRITE]);
  });

  it.each(entries)('%s without a field mask needs only its base rights', (_, def) => {
    expect(requiredRights(def, {})).toEqual(def.rights);
  });

  it.each(['JsEndDeviceRegistry', 'NsEndDeviceRegistry', 'AsEndDeviceRegistry'] as const)('%s: every key path needs the *_KEYS right', (service) => {
    for (const path of KEY_PATHS.read) expect(requiredRights(RPCS[`${service}.Get`], request(`${service}.Get`, [path]))).toContain(READ_KEYS);
    for (const path of KEY_PATHS.write) expect(requiredRights(RPCS[`${service}.Set`], request(`${service}.Set`, [path]))).toContain(WRITE_KEYS);
  });

  it.each(['JsEndDeviceRegistry', 'NsEndDeviceRegistry', 'AsEndDeviceRegistry'] as const)(
    '%s: a Get of all allowed paths needs READ_KEYS; one without any key path does not',
    (service) => {
      const all = [...ALLOWED_PATHS[`${service}.Get`]];
      expect(requiredRights(RPCS[`${service}.Get`], request(`${service}.Get`, all))).toContain(READ_KEYS);
      const keyless = all.filter((p) => !KEY_PATHS.read.some((k) => k === p || k.startsWith(`${p}.`)));
      expect(keyless.length).toBeGreaterThan(0);
      expect(requiredRights(RPCS[`${service}.Get`], request(`${service}.Get`, keyless))).not.toContain(READ_KEYS);
    },
  );
});
