import {
  ACCESS_INVALIDATION_SUBJECT,
  ALL_RIGHTS,
  type AccessInvalidation,
  type CallerIdentity,
  type Collaborator,
  CreateApplicationRequest,
  CreateClientRequest,
  CreateGatewayRequest,
  CreateOrganizationRequest,
  decodeMessage,
  impliedRights,
  type Right,
  rightsHeldBy,
  rightsOfKind,
  type RpcContext,
  sortRights,
  UpdateApplicationRequest,
} from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import type { StackError } from '@lorawan/errors';
import { type EventRecorder, recordEvents } from '@lorawan/testing';
import { decode, InProcessBroker } from '@lorawan/transport';
import { AccessInvalidator } from '../../access-invalidator';
import { caller } from '../../access/access-fixtures.conformance';
import { RightsResolver } from '../../access/rights-resolver';
import { CTX, type IdentityTestBed, openIdentityTestBed } from '../identity-fixtures.conformance';
import { CollaboratorService, type ManagedRef } from './collaborator.service';

const app1: ManagedRef = { kind: 'application', id: 'app1' };
const gtw1: ManagedRef = { kind: 'gateway', id: 'gtw1' };
const ALL_APP = [...rightsOfKind('application')];
const ctx = (who: CallerIdentity | undefined): RpcContext => ({ request_id: 'r', correlation_ids: ['rpc:spec'], caller: who });
/** A key of a user with `RIGHT_ALL` (alice: the entities' creator). */
const userKey = (userId: string, extra: Partial<CallerIdentity> = {}): Partial<CallerIdentity> => ({
  owner: { kind: 'user', id: userId },
  key_rights: [...ALL_RIGHTS],
  ...extra,
});
/** A collaborator with every right the entity's kind holds, as Authorize resolves it. */
const full = (entity: ManagedRef = app1, userId = 'alice') => ctx(caller(entity, [...rightsHeldBy(entity.kind)], userKey(userId)));
/** A caller holding the given rights (implied) on the entity. */
const holding = (rights: Right[], entity: ManagedRef = app1, userId = 'alice') => ctx(caller(entity, sortRights(impliedRights(rights)), userKey(userId)));
/** A caller resolved for no entity (the gateway leaves a Delete naming an organization to the IS: `orEntityByHandler`). */
const unresolved = (userId: string, extra: Partial<CallerIdentity> = {}) => ctx({ ...caller(app1, [], userKey(userId, extra)), entity: undefined, rights: [] });
const member = (userId: string, rights: string[] = []): Collaborator => ({ ids: { user_ids: { user_id: userId } }, rights });

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    return (err as StackError).toDetails();
  }
  throw new Error('expected a failure');
}

describe('CollaboratorService (SQLite)', () => {
  let bed: IdentityTestBed;
  let transport: InProcessBroker;
  let invalidations: AccessInvalidation[];
  let events: EventRecorder;
  let service: CollaboratorService;
  const rightsOf = (userId: string, entity: ManagedRef = app1) => bed.stores.collaborators.rightsOf(userId, entity);

  beforeEach(async () => {
    bed = await openIdentityTestBed();
    for (const id of ['alice', 'bob', 'carol']) {
      await bed.stores.users.create({
        ids: { user_id: id },
        created_at: '2024-05-01T10:00:00.000000Z',
        updated_at: '2024-05-01T10:00:00.000000Z',
        state: 'STATE_APPROVED',
      });
    }
    await bed.applications.create(
      decodeMessage(CreateApplicationRequest, { application: { ids: { application_id: 'app1' } }, collaborator: member('alice').ids }),
      CTX,
    );
    await bed.gateways.create(
      decodeMessage(CreateGatewayRequest, { gateway: { ids: { gateway_id: 'gtw1' }, frequency_plan_id: 'EU_863_870_TTN' }, collaborator: member('alice').ids }),
      CTX,
    );
    transport = new InProcessBroker();
    invalidations = [];
    transport.subscribe(ACCESS_INVALIDATION_SUBJECT, (payload) => invalidations.push(decode(payload)));
    events = recordEvents(transport);
    service = new CollaboratorService(
      bed.stores.collaborators,
      bed.directory,
      new AccessInvalidator(transport),
      new EventPublisher(transport),
      new RightsResolver(bed.directory),
    );
  });
  afterEach(async () => {
    await transport?.close();
    await bed?.close();
  });

  describe('set', () => {
    it('adds a user with rights, publishes application.collaborator.update and invalidates the application’s cached rights', async () => {
      expect(await service.set(app1, member('bob', ['RIGHT_APPLICATION_DEVICES_READ']), full())).toEqual({});
      expect(await rightsOf('bob')).toEqual(['RIGHT_APPLICATION_DEVICES_READ']);
      expect(await service.get(app1, { user_ids: { user_id: 'bob' } })).toEqual({
        ids: { user_ids: { user_id: 'bob' } },
        rights: ['RIGHT_APPLICATION_DEVICES_READ'],
      });
      expect(await events.take()).toEqual([
        {
          name: 'application.collaborator.update',
          identifiers: [{ application_ids: { application_id: 'app1' } }, { user_ids: { user_id: 'bob' } }],
          data: {
            '@type': 'type.googleapis.com/ttn.lorawan.v3.Collaborator',
            ids: { user_ids: { user_id: 'bob' } },
            rights: ['RIGHT_APPLICATION_DEVICES_READ'],
          },
          correlation_ids: ['rpc:spec'],
          visibility: { rights: ['RIGHT_APPLICATION_SETTINGS_COLLABORATORS', 'RIGHT_USER_APPLICATIONS_LIST'] },
        },
      ]);
      expect(invalidations).toEqual([{ entity: { kind: 'application', id: 'app1' } }]);
    });

    it('updates rights (stored sorted, each once); no rights removes the collaborator (application.collaborator.delete)', async () => {
      await service.set(app1, member('bob', ['RIGHT_APPLICATION_LINK', 'RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_INFO']), full());
      expect(await rightsOf('bob')).toEqual(['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_LINK']);
      await events.take();
      await service.set(app1, member('bob'), full());
      expect(await rightsOf('bob')).toEqual([]);
      expect(await events.take()).toEqual([
        expect.objectContaining({
          name: 'application.collaborator.delete',
          identifiers: [{ application_ids: { application_id: 'app1' } }, { user_ids: { user_id: 'bob' } }],
        }),
      ]);
      expect(events.all.at(-1)).not.toHaveProperty('data');
    });

    it('the collaborator must be an existing user (404 user_not_found); the entity must exist; nothing is stored', async () => {
      expect(await failure(service.set(app1, member('nobody', ['RIGHT_APPLICATION_INFO']), full()))).toMatchObject({
        namespace: 'pkg/identityserver/store',
        name: 'user_not_found',
        code: 5,
        attributes: { user_id: 'nobody' },
      });
      const ghost: ManagedRef = { kind: 'application', id: 'ghost' };
      expect(await failure(service.set(ghost, member('bob', ['RIGHT_APPLICATION_INFO']), full(ghost)))).toMatchObject({
        name: 'application_not_found',
        attributes: { application_id: 'ghost' },
      });
      expect(await rightsOf('nobody')).toEqual([]);
      expect(await events.take()).toEqual([]);
      expect(invalidations).toEqual([]);
    });

    it('refuses rights of another kind (400), but takes RIGHT_ALL', async () => {
      expect(await failure(service.set(app1, member('bob', ['RIGHT_APPLICATION_INFO', 'RIGHT_GATEWAY_INFO']), full()))).toMatchObject({
        namespace: 'pkg/errors',
        name: 'validation',
        code: 3,
        attributes: { field: 'collaborator', name: 'SetApplicationCollaboratorRequestValidationError' },
      });
      expect(await rightsOf('bob')).toEqual([]);
      await service.set(app1, member('bob', ['RIGHT_ALL']), full());
      expect(await rightsOf('bob')).toEqual(['RIGHT_ALL']);
    });

    it('a caller grants only rights it holds (403 insufficient_application_rights naming the missing ones), storing nothing', async () => {
      const limited = holding(['RIGHT_APPLICATION_SETTINGS_COLLABORATORS', 'RIGHT_APPLICATION_DEVICES_READ']);
      expect(await failure(service.set(app1, member('bob', ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_DEVICES_WRITE']), limited))).toMatchObject({
        namespace: 'pkg/auth/rights',
        name: 'insufficient_application_rights',
        code: 7,
        attributes: { uid: 'app1', missing: ['RIGHT_APPLICATION_DEVICES_WRITE'] },
      });
      expect(await failure(service.set(app1, member('bob', ['RIGHT_APPLICATION_ALL']), limited))).toMatchObject({
        name: 'insufficient_application_rights',
        attributes: { missing: expect.arrayContaining(['RIGHT_APPLICATION_ALL', 'RIGHT_APPLICATION_DELETE']) },
      });
      expect(await rightsOf('bob')).toEqual([]);
      await service.set(app1, member('bob', ['RIGHT_APPLICATION_DEVICES_READ']), limited);
      expect(await rightsOf('bob')).toEqual(['RIGHT_APPLICATION_DEVICES_READ']);
    });

    it('a caller takes away only rights it holds, except when it removes the collaborator altogether (TTS)', async () => {
      await service.set(app1, member('bob', ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_DEVICES_WRITE']), full());
      const limited = holding(['RIGHT_APPLICATION_SETTINGS_COLLABORATORS', 'RIGHT_APPLICATION_DEVICES_READ']);
      expect(await failure(service.set(app1, member('bob', ['RIGHT_APPLICATION_DEVICES_READ']), limited))).toMatchObject({
        name: 'insufficient_application_rights',
        attributes: { missing: ['RIGHT_APPLICATION_DEVICES_WRITE'] },
      });
      expect(await rightsOf('bob')).toEqual(['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_DEVICES_WRITE']);
      await service.set(app1, member('bob'), limited);
      expect(await rightsOf('bob')).toEqual([]);
    });

    it('the last collaborator with RIGHT_APPLICATION_ALL keeps it (400 application_needs_collaborator); with another one it may go', async () => {
      for (const rights of [[], ['RIGHT_APPLICATION_INFO']]) {
        expect(await failure(service.set(app1, member('alice', rights), full()))).toMatchObject({
          namespace: 'pkg/identityserver',
          name: 'application_needs_collaborator',
          code: 9,
        });
      }
      expect(await rightsOf('alice')).toEqual(['RIGHT_ALL']);
      // RIGHT_ALL → RIGHT_APPLICATION_ALL takes nothing away on the application.
      await service.set(app1, member('alice', ['RIGHT_APPLICATION_ALL']), full());
      await service.set(app1, member('carol', ['RIGHT_ALL']), full());
      await service.set(app1, member('alice', ['RIGHT_APPLICATION_INFO']), full());
      expect(await rightsOf('alice')).toEqual(['RIGHT_APPLICATION_INFO']);
      expect(await failure(service.set(app1, member('carol'), full()))).toMatchObject({ name: 'application_needs_collaborator' });
    });

    it('of concurrent removals of the holders of RIGHT_APPLICATION_ALL, one fails', async () => {
      await service.set(app1, member('bob', ['RIGHT_APPLICATION_ALL']), full());
      await service.set(app1, member('carol', ['RIGHT_APPLICATION_ALL']), full());
      const results = await Promise.allSettled(['alice', 'bob', 'carol'].map((id) => service.set(app1, member(id), full())));
      expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
      const left = await service.list(app1, {}, full());
      expect(left.total).toBe(1);
    });

    it('refuses a missing organization and a collaborator without identifiers', async () => {
      expect(
        await failure(service.set(app1, { ids: { organization_ids: { organization_id: 'org' } }, rights: ['RIGHT_APPLICATION_INFO'] }, full())),
      ).toMatchObject({
        name: 'organization_not_found',
        code: 5,
      });
      expect(await failure(service.set(app1, { ids: {}, rights: ['RIGHT_APPLICATION_INFO'] }, full()))).toMatchObject({ name: 'validation' });
    });

    it('removing a user that is no collaborator is not found', async () => {
      expect(await failure(service.set(app1, member('bob'), full()))).toMatchObject({
        namespace: 'pkg/identityserver/store',
        name: 'membership_not_found',
        code: 5,
        attributes: { account_type: 'user', account_id: 'bob', entity_type: 'application', entity_id: 'app1' },
      });
    });

    it('works alike on gateways (gateway rights, gateway_needs_collaborator, gateway.collaborator.* events)', async () => {
      await service.set(gtw1, member('bob', ['RIGHT_GATEWAY_INFO']), full(gtw1));
      expect(await rightsOf('bob', gtw1)).toEqual(['RIGHT_GATEWAY_INFO']);
      expect(await failure(service.set(gtw1, member('bob', ['RIGHT_APPLICATION_INFO']), full(gtw1)))).toMatchObject({ name: 'validation' });
      expect(await failure(service.set(gtw1, member('alice'), full(gtw1)))).toMatchObject({ name: 'gateway_needs_collaborator', code: 9 });
      await service.delete(gtw1, { user_ids: { user_id: 'bob' } }, full(gtw1));
      expect((await events.take()).map((e) => e.name)).toEqual(['gateway.collaborator.update', 'gateway.collaborator.delete']);
      expect(invalidations).toEqual([{ entity: { kind: 'gateway', id: 'gtw1' } }, { entity: { kind: 'gateway', id: 'gtw1' } }]);
    });
  });

  describe('delete', () => {
    it('removes a collaborator, publishing application.collaborator.delete and invalidating', async () => {
      await service.set(app1, member('bob', ['RIGHT_APPLICATION_INFO']), full());
      await events.take();
      invalidations.length = 0;
      expect(await service.delete(app1, { user_ids: { user_id: 'bob' } }, full())).toEqual({});
      expect(await rightsOf('bob')).toEqual([]);
      expect((await events.take()).map((e) => e.name)).toEqual(['application.collaborator.delete']);
      expect(invalidations).toEqual([{ entity: { kind: 'application', id: 'app1' } }]);
    });

    it('refuses a contact (collaborator_is_contact), the last RIGHT_APPLICATION_ALL, a non-member', async () => {
      expect(await failure(service.delete(app1, { user_ids: { user_id: 'alice' } }, full()))).toMatchObject({
        namespace: 'pkg/identityserver',
        name: 'collaborator_is_contact',
        code: 9,
        attributes: { collaborator_id: 'alice' },
      });
      await service.set(app1, member('bob', ['RIGHT_APPLICATION_ALL']), full());
      await service.set(app1, member('alice', ['RIGHT_APPLICATION_INFO']), full());
      await bed.applications.update(
        decodeMessage(UpdateApplicationRequest, {
          application: { ids: { application_id: 'app1' }, administrative_contact: member('bob').ids, technical_contact: member('bob').ids },
          field_mask: { paths: ['administrative_contact', 'technical_contact'] },
        }),
        CTX,
      );
      expect(await failure(service.delete(app1, { user_ids: { user_id: 'bob' } }, full()))).toMatchObject({ name: 'collaborator_is_contact' });
      expect(await failure(service.delete(app1, { user_ids: { user_id: 'carol' } }, full()))).toMatchObject({ name: 'membership_not_found' });
      expect(await rightsOf('bob')).toEqual(['RIGHT_APPLICATION_ALL']);
    });
  });

  describe('list, get', () => {
    beforeEach(async () => {
      await service.set(app1, member('carol', ['RIGHT_APPLICATION_INFO']), full());
      await service.set(app1, member('bob', ['RIGHT_APPLICATION_DEVICES_READ']), full());
    });

    it('lists the collaborators with their rights (by ID by default), paginated with the total', async () => {
      const all = await service.list(app1, {}, full());
      expect(all.total).toBe(3);
      expect(all.body).toEqual({
        collaborators: [member('alice', ['RIGHT_ALL']), member('bob', ['RIGHT_APPLICATION_DEVICES_READ']), member('carol', ['RIGHT_APPLICATION_INFO'])],
      });
      const second = await service.list(app1, { order: '-id', limit: 2, page: 2 }, full());
      expect(second).toMatchObject({ body: { collaborators: [member('alice', ['RIGHT_ALL'])] }, total: 3 });
      expect(await service.list(app1, { limit: 2, page: 3 }, full())).toMatchObject({ body: {}, total: 3 });
    });

    it('without the right to manage collaborators, shows their identifiers only (TTS PublicSafe)', async () => {
      const page = await service.list(app1, {}, holding(['RIGHT_APPLICATION_INFO']));
      expect(page.body).toEqual({
        collaborators: [{ ids: { user_ids: { user_id: 'alice' } } }, { ids: { user_ids: { user_id: 'bob' } } }, { ids: { user_ids: { user_id: 'carol' } } }],
      });
      expect((await service.list(app1, {}, ctx(caller(gtw1, ALL_APP)))).body.collaborators?.[0]).not.toHaveProperty('rights');
    });

    it('gets one collaborator; a non-member (user or organization), a missing application are refused', async () => {
      expect(await service.get(app1, { user_ids: { user_id: 'alice' } })).toEqual(member('alice', ['RIGHT_ALL']));
      expect(await failure(service.get(app1, { user_ids: { user_id: 'nobody' } }))).toMatchObject({ name: 'membership_not_found' });
      expect(await failure(service.get({ kind: 'application', id: 'ghost' }, { user_ids: { user_id: 'alice' } }))).toMatchObject({
        name: 'application_not_found',
      });
      expect(await failure(service.list({ kind: 'gateway', id: 'ghost' }, {}, full()))).toMatchObject({ name: 'gateway_not_found' });
      expect(await failure(service.get(app1, { organization_ids: { organization_id: 'org' } }))).toMatchObject({ name: 'membership_not_found' });
    });
  });

  describe('organizations: members, and organizations as collaborators', () => {
    const org1: ManagedRef = { kind: 'organization', id: 'org1' };
    const cli1: ManagedRef = { kind: 'client', id: 'cli1' };
    const orgMember = (organizationId: string, rights: string[] = []): Collaborator => ({
      ids: { organization_ids: { organization_id: organizationId } },
      rights,
    });

    const named = async (name: string) => (await events.take()).filter((e) => e.name === name);

    beforeEach(async () => {
      await bed.organizations.create(
        decodeMessage(CreateOrganizationRequest, { organization: { ids: { organization_id: 'org1' } }, collaborator: member('alice').ids }),
        CTX,
      );
      await bed.clients.create(decodeMessage(CreateClientRequest, { client: { ids: { client_id: 'cli1' } }, collaborator: member('alice').ids }), CTX);
    });

    it('a member holds rights on the organization, including rights on the entities it reaches; organizations do not nest', async () => {
      await service.set(org1, member('bob', ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_ORGANIZATION_INFO']), full(org1));
      expect(await rightsOf('bob', org1)).toEqual(['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_ORGANIZATION_INFO']);
      const updates = await named('organization.collaborator.update');
      expect(updates).toHaveLength(1);
      expect(updates[0].identifiers).toEqual([{ organization_ids: { organization_id: 'org1' } }, { user_ids: { user_id: 'bob' } }]);
      // The user's cached rights everywhere go, not only those on the organization.
      expect(invalidations).toEqual(expect.arrayContaining([{ entity: org1 }, { entity: { kind: 'user', id: 'bob' } }]));
      expect(await failure(service.set(org1, orgMember('org1', ['RIGHT_ORGANIZATION_INFO']), full(org1)))).toMatchObject({
        name: 'nested_organizations',
        code: 3,
      });
      expect(await failure(service.delete(org1, { organization_ids: { organization_id: 'org1' } }, full(org1)))).toMatchObject({
        name: 'nested_organizations',
      });
      expect(await failure(service.set(org1, member('carol', ['RIGHT_USER_INFO']), full(org1)))).toMatchObject({ name: 'validation' });
    });

    it('the last member with ORGANIZATION_ALL stays; a member grants only rights it holds', async () => {
      expect(await failure(service.set(org1, member('alice', ['RIGHT_ORGANIZATION_INFO']), full(org1)))).toMatchObject({
        name: 'organization_needs_collaborator',
        code: 9,
      });
      const bobManages = holding(['RIGHT_ORGANIZATION_SETTINGS_MEMBERS', 'RIGHT_ORGANIZATION_INFO'], org1);
      expect(await failure(service.set(org1, member('carol', ['RIGHT_APPLICATION_ALL']), bobManages))).toMatchObject({
        name: 'insufficient_organization_rights',
      });
      await service.set(org1, member('carol', ['RIGHT_ORGANIZATION_INFO']), bobManages);
      expect(await rightsOf('carol', org1)).toEqual(['RIGHT_ORGANIZATION_INFO']);
    });

    it('an organization collaborates on an application and a client; a missing one is not found', async () => {
      await service.set(app1, orgMember('org1', ['RIGHT_APPLICATION_INFO']), full());
      expect(await service.get(app1, { organization_ids: { organization_id: 'org1' } })).toEqual(orgMember('org1', ['RIGHT_APPLICATION_INFO']));
      const listed = await service.list(app1, {}, full());
      expect(listed.body.collaborators).toEqual([member('alice', ['RIGHT_ALL']), orgMember('org1', ['RIGHT_APPLICATION_INFO'])]);
      await service.set(cli1, orgMember('org1', ['RIGHT_CLIENT_INFO']), full(cli1));
      expect(await named('client.collaborator.update')).toHaveLength(1);
      await service.delete(cli1, { organization_ids: { organization_id: 'org1' } }, full(cli1));
      expect(await named('client.collaborator.delete')).toHaveLength(1);
      expect(await rightsOf('org1', cli1)).toEqual([]);
      expect(await failure(service.set(app1, orgMember('ghost-org', ['RIGHT_APPLICATION_INFO']), full()))).toMatchObject({
        name: 'organization_not_found',
        code: 5,
      });
      expect(await failure(service.set(cli1, member('bob', ['RIGHT_APPLICATION_INFO']), full(cli1)))).toMatchObject({ name: 'validation' });
    });

    describe('consent: RIGHT_ORGANIZATION_ADD_AS_COLLABORATOR on the organization', () => {
      const CONSENT = 'RIGHT_ORGANIZATION_ADD_AS_COLLABORATOR';
      const orgIds = { organization_ids: { organization_id: 'org1' } };

      beforeEach(async () => {
        // bob manages app1, gtw1 and cli1 but is no member of org1; carol is a member without the consent right.
        for (const entity of [app1, gtw1, cli1]) await service.set(entity, member('bob', [...rightsHeldBy(entity.kind)]), full(entity));
        await service.set(org1, member('carol', ['RIGHT_ORGANIZATION_INFO']), full(org1));
        await events.take();
      });

      it('a caller without rights on the organization cannot make it a collaborator of an application, gateway or client', async () => {
        for (const [entity, right] of [
          [app1, 'RIGHT_APPLICATION_INFO'],
          [gtw1, 'RIGHT_GATEWAY_INFO'],
          [cli1, 'RIGHT_CLIENT_INFO'],
        ] as const) {
          expect(await failure(service.set(entity, orgMember('org1', [right]), full(entity, 'bob')))).toMatchObject({
            namespace: 'pkg/auth/rights',
            name: 'no_organization_rights',
            code: 7,
            attributes: { uid: 'org1' },
          });
          expect(await rightsOf('org1', entity)).toEqual([]);
        }
        expect(await events.take()).toEqual([]);
      });

      it('a member without the consent right, or whose key lacks it, is refused naming it; with it the organization joins', async () => {
        expect(await failure(service.set(app1, orgMember('org1', ['RIGHT_APPLICATION_INFO']), holding(ALL_APP, app1, 'carol')))).toMatchObject({
          name: 'insufficient_organization_rights',
          attributes: { uid: 'org1', missing: [CONSENT] },
        });
        await service.set(org1, member('carol', ['RIGHT_ORGANIZATION_INFO', CONSENT]), full(org1));
        const keyWithout = ctx(
          caller(
            app1,
            ALL_APP,
            userKey('carol', { key_rights: ALL_RIGHTS.filter((r) => r !== CONSENT && r !== 'RIGHT_ALL' && r !== 'RIGHT_ORGANIZATION_ALL') }),
          ),
        );
        expect(await failure(service.set(app1, orgMember('org1', ['RIGHT_APPLICATION_INFO']), keyWithout))).toMatchObject({
          name: 'insufficient_organization_rights',
          attributes: { missing: [CONSENT] },
        });
        expect(await rightsOf('org1')).toEqual([]);
        await service.set(app1, orgMember('org1', ['RIGHT_APPLICATION_INFO']), holding(ALL_APP, app1, 'carol'));
        expect(await rightsOf('org1')).toEqual(['RIGHT_APPLICATION_INFO']);
        // Once it collaborates, changing its rights is the application's business.
        await service.set(app1, orgMember('org1', ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DEVICES_READ']), full(app1, 'bob'));
        expect(await rightsOf('org1')).toEqual(['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_INFO']);
      });

      it('an admin holds the consent right on every organization', async () => {
        await bed.stores.users.create({
          ids: { user_id: 'root' },
          admin: true,
          created_at: '2024-05-01T10:00:00.000000Z',
          updated_at: '2024-05-01T10:00:00.000000Z',
          state: 'STATE_APPROVED',
        });
        await service.set(
          gtw1,
          orgMember('org1', ['RIGHT_GATEWAY_INFO']),
          ctx(caller(gtw1, [...rightsHeldBy('gateway')], userKey('root', { is_admin: true }))),
        );
        expect(await rightsOf('org1', gtw1)).toEqual(['RIGHT_GATEWAY_INFO']);
      });

      it('decides on the caller’s membership as the change’s transaction reads it', async () => {
        await service.set(org1, member('carol', ['RIGHT_ORGANIZATION_INFO', CONSENT]), full(org1));
        const change = bed.stores.collaborators.change.bind(bed.stores.collaborators);
        jest.spyOn(bed.stores.collaborators, 'change').mockImplementationOnce(async (entity, account, decide, now, options) => {
          expect(options).toEqual({ actor: 'carol' });
          // carol's consent right goes just before the transaction.
          await change(org1, { kind: 'user', id: 'carol' }, () => ['RIGHT_ORGANIZATION_INFO'], now);
          return change(entity, account, decide, now, options);
        });
        expect(await failure(service.set(app1, orgMember('org1', ['RIGHT_APPLICATION_INFO']), holding(ALL_APP, app1, 'carol')))).toMatchObject({
          name: 'insufficient_organization_rights',
        });
        expect(await rightsOf('org1')).toEqual([]);
      });

      it('who holds the consent right takes the organization off without any right on the entity; others get the guard’s errors', async () => {
        await service.set(app1, orgMember('org1', ['RIGHT_APPLICATION_INFO']), full());
        await service.set(cli1, orgMember('org1', ['RIGHT_CLIENT_INFO']), full(cli1));
        await events.take();
        // dave holds nothing: the application's error, as the guard would answer (nothing about the organization).
        await bed.stores.users.create({
          ids: { user_id: 'dave' },
          created_at: '2024-05-01T10:00:00.000000Z',
          updated_at: '2024-05-01T10:00:00.000000Z',
          state: 'STATE_APPROVED',
        });
        expect(await failure(service.delete(app1, orgIds, unresolved('dave')))).toMatchObject({
          namespace: 'pkg/auth/rights',
          name: 'no_application_rights',
          attributes: { uid: 'app1' },
        });
        // carol reads app1 but may not manage its collaborators, nor consent for org1.
        await service.set(app1, member('carol', ['RIGHT_APPLICATION_INFO']), full());
        expect(await failure(service.delete(app1, orgIds, unresolved('carol')))).toMatchObject({
          name: 'insufficient_application_rights',
          attributes: { uid: 'app1', missing: ['RIGHT_APPLICATION_SETTINGS_COLLABORATORS'] },
        });
        expect(await rightsOf('org1')).toEqual(['RIGHT_APPLICATION_INFO']);
        // With the consent right on org1 (a key holding it), carol takes org1 off app1 and cli1.
        await service.set(org1, member('carol', ['RIGHT_ORGANIZATION_INFO', CONSENT]), full(org1));
        await events.take();
        expect(await service.delete(app1, orgIds, unresolved('carol'))).toEqual({});
        expect(await service.delete(cli1, orgIds, unresolved('carol', { key_rights: [CONSENT] }))).toEqual({});
        expect(await rightsOf('org1')).toEqual([]);
        expect(await rightsOf('org1', cli1)).toEqual([]);
        expect((await events.take()).map((e) => e.name)).toEqual(['application.collaborator.delete', 'client.collaborator.delete']);
        // The entity's managers still remove an organization without its consent.
        await service.set(gtw1, orgMember('org1', ['RIGHT_GATEWAY_INFO']), full(gtw1));
        expect(await service.delete(gtw1, orgIds, unresolved('bob'))).toEqual({});
        expect(await rightsOf('org1', gtw1)).toEqual([]);
      });

      it('a consenting member still keeps the entity’s rules: its last collaborator with *_ALL stays', async () => {
        await service.set(org1, member('carol', ['RIGHT_ORGANIZATION_INFO', CONSENT]), full(org1));
        await service.set(app1, orgMember('org1', ['RIGHT_APPLICATION_ALL']), full());
        for (const id of ['alice', 'bob']) await bed.stores.collaborators.change(app1, { kind: 'user', id }, () => [], '2024-05-02T10:00:00.000000Z');
        expect(await failure(service.delete(app1, orgIds, unresolved('carol')))).toMatchObject({ name: 'application_needs_collaborator' });
      });
    });
  });
});
