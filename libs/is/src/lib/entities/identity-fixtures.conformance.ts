import {
  ACCESS_INVALIDATION_SUBJECT,
  type AccessInvalidation,
  ALL_RIGHTS,
  type CallerIdentity,
  type EntityRef,
  type Right,
  type RpcContext,
} from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import type { StackConfig } from '@lorawan/config';
import { runMigrations } from '@lorawan/persistence';
import { type EventRecorder, recordEvents } from '@lorawan/testing';
import { decode, InProcessBroker } from '@lorawan/transport';
import { DataSource } from 'typeorm';
import { AccessInvalidator } from '../access-invalidator';
import { TypeOrmEndDeviceStore } from '../end-devices/typeorm-end-device.store';
import type { ApiKeyCleanup } from '../identity.contracts';
import { IS_ENTITIES } from '../is-data-source';
import { testGatewaySecrets } from '../is-test-databases.conformance';
import { IS_MIGRATIONS } from '../migrations';
import { ApplicationRegistryService } from './applications/application-registry.service';
import { TypeOrmApplicationStore } from './applications/typeorm-application.store';
import { ClientRegistryService } from './clients/client-registry.service';
import { TypeOrmClientStore } from './clients/typeorm-client.store';
import { TypeOrmCollaboratorStore } from './collaborators/typeorm-collaborator.store';
import { GatewayRegistryService } from './gateways/gateway-registry.service';
import { TypeOrmGatewayStore } from './gateways/typeorm-gateway.store';
import { IdentityDirectoryService } from './identity-directory.service';
import { OrganizationRegistryService } from './organizations/organization-registry.service';
import { TypeOrmOrganizationStore } from './organizations/typeorm-organization.store';
import { TypeOrmUserStore } from './users/typeorm-user.store';
import { UserRegistryService } from './users/user-registry.service';

/**
 * The entity side of the IS on a real, in-memory SQLite database with its migrations (specs only;
 * `.conformance.ts` keeps it out of the build): the stores, the services, and doubles for what the
 * access side provides (API-key cleanup) and for the broadcast of access invalidations. Events are
 * published on the bed's in-process transport, where `events` receives them.
 */
export interface IdentityTestBed {
  dataSource: DataSource;
  users: UserRegistryService;
  applications: ApplicationRegistryService;
  gateways: GatewayRegistryService;
  clients: ClientRegistryService;
  organizations: OrganizationRegistryService;
  directory: IdentityDirectoryService;
  stores: {
    users: TypeOrmUserStore;
    applications: TypeOrmApplicationStore;
    gateways: TypeOrmGatewayStore;
    clients: TypeOrmClientStore;
    organizations: TypeOrmOrganizationStore;
    collaborators: TypeOrmCollaboratorStore;
  };
  devices: TypeOrmEndDeviceStore;
  /** Entities whose API keys were deleted, in order. */
  keyCleanups: EntityRef[];
  /** Access invalidations published, in order. */
  invalidations: AccessInvalidation[];
  /** The events the services published (a subscriber of `events.>`). */
  events: EventRecorder;
  /** The publisher the services use. */
  publisher: EventPublisher;
  addDevice(applicationId: string, deviceId: string): Promise<void>;
  close(): Promise<void>;
}

export const ADMIN_USER_ID = 'admin';

/** The IS's schema, by its migrations, on a new in-memory SQLite database. */
export async function openIdentityDatabase(): Promise<DataSource> {
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: IS_ENTITIES,
    migrations: IS_MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
  });
  await dataSource.initialize();
  await runMigrations(dataSource);
  return dataSource;
}

export async function openIdentityTestBed(): Promise<IdentityTestBed> {
  const dataSource = await openIdentityDatabase();
  const transport = new InProcessBroker();
  const invalidations: AccessInvalidation[] = [];
  transport.subscribe(ACCESS_INVALIDATION_SUBJECT, (payload) => invalidations.push(decode<AccessInvalidation>(payload)));
  const invalidator = new AccessInvalidator(transport);
  const publisher = new EventPublisher(transport);
  const events = recordEvents(transport);
  const keyCleanups: EntityRef[] = [];
  const apiKeys: ApiKeyCleanup = { deleteKeysOf: async (entity) => void keyCleanups.push(entity) };
  const stores = {
    users: new TypeOrmUserStore(dataSource),
    applications: new TypeOrmApplicationStore(dataSource),
    gateways: new TypeOrmGatewayStore(dataSource, testGatewaySecrets()),
    clients: new TypeOrmClientStore(dataSource),
    organizations: new TypeOrmOrganizationStore(dataSource),
    collaborators: new TypeOrmCollaboratorStore(dataSource),
  };
  const devices = new TypeOrmEndDeviceStore(dataSource);
  const config = { adminUserId: ADMIN_USER_ID } as StackConfig;
  const directory = new IdentityDirectoryService(
    stores.users,
    stores.applications,
    stores.gateways,
    stores.collaborators,
    stores.clients,
    stores.organizations,
  );
  return {
    dataSource,
    users: new UserRegistryService(stores.users, config, invalidator, publisher),
    applications: new ApplicationRegistryService(stores.applications, stores.users, stores.collaborators, directory, apiKeys, invalidator, publisher),
    gateways: new GatewayRegistryService(stores.gateways, stores.users, stores.collaborators, directory, apiKeys, invalidator, publisher),
    clients: new ClientRegistryService(stores.clients, stores.users, stores.collaborators, directory, invalidator, publisher),
    organizations: new OrganizationRegistryService(stores.organizations, stores.users, stores.collaborators, apiKeys, invalidator, publisher),
    directory,
    stores,
    devices,
    keyCleanups,
    invalidations,
    events,
    publisher,
    addDevice: async (applicationId, deviceId) => {
      const now = '2024-05-01T10:00:00.000000Z';
      await devices.create({ ids: { device_id: deviceId, application_ids: { application_id: applicationId } }, created_at: now, updated_at: now });
    },
    close: async () => {
      await transport.close();
      await dataSource.destroy();
    },
  };
}

/** A request's context (no correlation IDs) for calls whose events a spec does not look at. */
export const ctxOf = (caller?: CallerIdentity): RpcContext => ({ request_id: 'spec', correlation_ids: [], ...(caller ? { caller } : {}) });
export const CTX = ctxOf();

function caller(owner: EntityRef, isAdmin: boolean, keyRights: readonly Right[]): CallerIdentity {
  return { kind: 'api-key', id: `KEY-OF-${owner.id}`, owner, is_admin: isAdmin, key_rights: [...keyRights], universal: false, rights: [] };
}

/** The admin key: the bootstrap admin user's, with every right. */
export const adminCaller = (): CallerIdentity => ({ ...caller({ kind: 'user', id: ADMIN_USER_ID }, true, ALL_RIGHTS), kind: 'admin-key' });
/** A (non-admin) user's API key. */
export const userCaller = (userId: string, keyRights: readonly Right[] = ALL_RIGHTS): CallerIdentity => caller({ kind: 'user', id: userId }, false, keyRights);
/** An application's or a gateway's API key. */
export const entityKeyCaller = (owner: EntityRef, keyRights: readonly Right[] = ALL_RIGHTS): CallerIdentity => caller(owner, false, keyRights);
