import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Type } from '@nestjs/common';
import { type CallerIdentity, type EntityIdentifiersJson, Right, type RpcContext, type RpcName } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import type { ErrorDetails } from '@lorawan/errors';
import { type EventRecorder, recordEvents, rpcContext, startTestComponent, type TestComponent } from '@lorawan/testing';
import type { RegistryEvents } from './device-registry';
import type { RegistryComponent } from './registry.providers';
import type { RegistryService } from './registry.controller';

/** A Set of the registry: the EndDevice (JSON as on the wire) and its field-mask paths. */
export interface RegistrySet {
  end_device: { ids: { device_id: string; application_ids: { application_id: string } } & Record<string, unknown> } & Record<string, unknown>;
  paths: string[];
}

export interface RegistryEventsCase {
  component: RegistryComponent;
  service: RegistryService;
  /** The component's Nest module (its registry providers and handlers), started on an in-process transport. */
  module: Type<unknown>;
  /** The event definitions the component's policy must name (`@lorawan/api` `<C>_EVENTS.endDevice`). */
  events: RegistryEvents;
  /** A Set that creates a valid device, with keys: none may appear in any event. */
  create: RegistrySet;
  /** The device's identifiers as the registry stores them after `create` (canonical EUIs, dev_addr of its session). */
  storedIds: Extract<EntityIdentifiersJson, { device_ids: unknown }>['device_ids'];
  /** A valid Set updating the device (keys again welcome). */
  update: RegistrySet;
  /** A Set the registry's rules refuse (the policy's validation). */
  invalid: RegistrySet;
  /** The key values sent in `create`/`update`, which no event may contain. */
  secrets: string[];
}

const universal: CallerIdentity = { kind: 'internal', id: 'spec', is_admin: false, key_rights: [], universal: true, rights: [] };

/**
 * The events of a JS/NS/AS registry, through its RPC handlers on a started component (the RPC
 * server's decoding and rights checks in front, the component's EventPublisher behind): Set
 * publishes `<c>.end_device.create` when the device was absent and `.update` (data: the request's
 * paths) otherwise, Delete `.delete`; once each, with the call's correlation IDs, naming the device
 * by its stored identifiers; a failed call publishes nothing; no event carries a key.
 */
export function describeRegistryEvents(c: RegistryEventsCase): void {
  describe(`${c.service} events (${c.events.create.name.replace(/\.create$/, '.*')})`, () => {
    const dir = mkdtempSync(join(tmpdir(), `lw-${c.component}-events-`));
    let component: TestComponent;
    let events: EventRecorder;
    const application_id = c.create.end_device.ids.application_ids.application_id;
    const device_id = c.create.end_device.ids.device_id;
    const visibility = { rights: [Right.RIGHT_APPLICATION_DEVICES_READ] };
    const identifiers = [{ device_ids: c.storedIds }];

    beforeAll(async () => {
      component = await startTestComponent(c.module, {
        component: c.component,
        config: loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'error', MQTT_PORT: '0', MQTT_HOST: '127.0.0.1' }),
      });
      events = recordEvents(component.broker);
    });
    afterAll(async () => {
      await component.close();
      component.broker.close();
      rmSync(dir, { recursive: true, force: true });
    });

    async function call(
      method: 'Set' | 'Get' | 'Delete',
      body: object,
      caller: CallerIdentity = universal,
    ): Promise<{ ctx: RpcContext; ok?: unknown; error?: ErrorDetails }> {
      const name = `${c.service}.${method}` as RpcName;
      const ctx = rpcContext(name, caller);
      const reply = await component.call(name, body, ctx);
      return { ctx, ...('error' in reply ? { error: reply.error } : { ok: reply.ok }) };
    }
    const set = (s: RegistrySet, caller?: CallerIdentity) => call('Set', { end_device: s.end_device, field_mask: { paths: s.paths } }, caller);
    const del = (caller?: CallerIdentity) => call('Delete', { application_ids: { application_id }, device_id }, caller);

    it('the component’s policy names its own events', () => {
      expect([c.events.create.name, c.events.update.name, c.events.delete.name]).toEqual(
        ['create', 'update', 'delete'].map((op) => `${c.component}.end_device.${op}`),
      );
    });

    it('Set of an absent device: one create event, no data, the call’s correlation ID, the device as stored', async () => {
      const res = await set(c.create);
      expect(res.error).toBeUndefined();
      expect(await events.take()).toEqual([{ name: c.events.create.name, identifiers, correlation_ids: res.ctx.correlation_ids, visibility }]);
      expect(res.ctx.correlation_ids[0]).toMatch(new RegExp(`^rpc:/ttn\\.lorawan\\.v3\\.${c.service}/Set:[0-9A-Z]{26}$`));
    });

    it('Set of an existing device: one update event whose data is the request’s field-mask paths', async () => {
      const res = await set(c.update);
      expect(res.error).toBeUndefined();
      expect(await events.take()).toEqual([
        {
          name: c.events.update.name,
          identifiers,
          data: { '@type': 'type.googleapis.com/google.protobuf.Value', value: c.update.paths },
          correlation_ids: res.ctx.correlation_ids,
          visibility,
        },
      ]);
    });

    it('nothing for a Get or a failed call: refused by the rules, by the field mask, by the rights, an unknown device', async () => {
      expect((await call('Get', { end_device_ids: c.create.end_device.ids })).error).toBeUndefined();
      expect((await set(c.invalid)).error).toMatchObject({ code: 3 });
      expect((await set({ end_device: c.update.end_device, paths: ['no_such_field'] })).error).toMatchObject({ code: 3 });
      const reader: CallerIdentity = {
        ...universal,
        kind: 'api-key',
        universal: false,
        entity: { kind: 'application', id: application_id },
        rights: [Right.RIGHT_APPLICATION_DEVICES_READ],
      };
      expect((await set(c.update, reader)).error).toMatchObject({ name: 'insufficient_application_rights', code: 7 });
      expect((await del(reader)).error).toMatchObject({ name: 'insufficient_application_rights', code: 7 });
      expect((await call('Delete', { application_ids: { application_id }, device_id: 'no-such-device' })).error).toMatchObject({
        name: 'device_not_found',
        code: 5,
      });
      expect(await events.take()).toEqual([]);
    });

    it('Delete: one delete event naming the device by its stored identifiers; deleting again publishes nothing', async () => {
      const res = await del();
      expect(res.error).toBeUndefined();
      expect(await events.take()).toEqual([{ name: c.events.delete.name, identifiers, correlation_ids: res.ctx.correlation_ids, visibility }]);
      expect((await del()).error).toMatchObject({ name: 'device_not_found' });
      expect(await events.take()).toEqual([]);
    });

    it('no event carries a key', () => {
      expect(events.all.map((e) => e.name)).toEqual([c.events.create.name, c.events.update.name, c.events.delete.name]);
      const published = JSON.stringify(events.all).toUpperCase();
      expect(c.secrets.length).toBeGreaterThan(0);
      for (const secret of c.secrets) expect(published).not.toContain(secret.toUpperCase());
      expect(published).not.toMatch(/"(KEYS?|ROOT_KEYS|SESSION)"\s*:/);
    });
  });
}
