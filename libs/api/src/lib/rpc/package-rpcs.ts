import { ApplicationUp } from '../messages/application-up';
import { EndDeviceIdentifiers } from '../messages/identifiers';
import {
  ApplicationPackageAssociation,
  ApplicationPackageAssociationIdentifiers,
  ApplicationPackageAssociations,
  ApplicationPackageDefaultAssociation,
  ApplicationPackageDefaultAssociationIdentifiers,
  ApplicationPackageDefaultAssociations,
  ApplicationPackages,
  GetApplicationPackageAssociationRequest,
  GetApplicationPackageDefaultAssociationRequest,
  GetStoredApplicationUpCountRequest,
  GetStoredApplicationUpCountResponse,
  GetStoredApplicationUpRequest,
  ListApplicationPackageAssociationRequest,
  ListApplicationPackageDefaultAssociationRequest,
  SetApplicationPackageAssociationRequest,
  SetApplicationPackageDefaultAssociationRequest,
} from '../messages/packages';
import { Empty } from '../messages/responses';
import { Right } from './rights';
import { applicationAt, defineRpc, type RpcDefinition, type RpcSpec } from './define-rpc';

const asRpc = <Req extends object>(service: string, def: Omit<RpcSpec<Req>, 'component' | 'service'>) => defineRpc({ ...def, service, component: 'as' });
const packagesRpc = <Req extends object>(def: Omit<RpcSpec<Req>, 'component' | 'service'>) => asRpc('ApplicationPackageRegistry', def);
const storageRpc = <Req extends object>(def: Omit<RpcSpec<Req>, 'component' | 'service'>) => asRpc('ApplicationUpStorage', def);

const DEVICE = '/as/applications/{ids.end_device_ids.application_ids.application_id}/devices/{ids.end_device_ids.device_id}/packages/associations/{ids.f_port}';
const DEFAULT = '/as/applications/{ids.application_ids.application_id}/packages/associations/{ids.f_port}';
const STORED_DEVICE = '/as/applications/{end_device_ids.application_ids.application_id}/devices/{end_device_ids.device_id}/packages/storage/{type}';
const STORED_APP = '/as/applications/{application_ids.application_id}/packages/storage/{type}';

/**
 * The AS's ApplicationPackageRegistry (TTS `applicationserver_packages.proto`, rights as
 * `io/packages/grpc.go`: `RIGHT_APPLICATION_SETTINGS_PACKAGES` for every RPC) and the Storage
 * Integration's ApplicationUpStorage (`applicationserver_integrations_storage.proto`:
 * `RIGHT_APPLICATION_TRAFFIC_READ`, on the application of the `application_ids` or of the
 * `end_device_ids` route). The HTTP paths are TTS's: default associations sit at
 * `/as/applications/{app}/packages/associations/{f_port}`.
 */
export function packageRpcs() {
  const packages = [Right.RIGHT_APPLICATION_SETTINGS_PACKAGES];
  const traffic = [Right.RIGHT_APPLICATION_TRAFFIC_READ];
  const byDevice = { kind: 'application' as const, path: 'end_device_ids.application_ids.application_id', rights: traffic };
  return {
    'ApplicationPackageRegistry.List': packagesRpc({
      method: 'List',
      http: [{ verb: 'GET', path: '/as/applications/{application_ids.application_id}/devices/{device_id}/packages' }],
      entity: applicationAt('application_ids.application_id'),
      rights: packages,
      request: EndDeviceIdentifiers,
      response: ApplicationPackages,
    }),
    'ApplicationPackageRegistry.GetAssociation': packagesRpc({
      method: 'GetAssociation',
      http: [{ verb: 'GET', path: DEVICE }],
      entity: applicationAt('ids.end_device_ids.application_ids.application_id'),
      rights: packages,
      request: GetApplicationPackageAssociationRequest,
      response: ApplicationPackageAssociation,
    }),
    'ApplicationPackageRegistry.ListAssociations': packagesRpc({
      method: 'ListAssociations',
      http: [{ verb: 'GET', path: '/as/applications/{ids.application_ids.application_id}/devices/{ids.device_id}/packages/associations' }],
      entity: applicationAt('ids.application_ids.application_id'),
      rights: packages,
      request: ListApplicationPackageAssociationRequest,
      response: ApplicationPackageAssociations,
      paginated: true,
    }),
    'ApplicationPackageRegistry.SetAssociation': packagesRpc({
      method: 'SetAssociation',
      http: [{ verb: 'PUT', path: DEVICE.replaceAll('{ids.', '{association.ids.'), body: '*' }],
      entity: applicationAt('association.ids.end_device_ids.application_ids.application_id'),
      rights: packages,
      request: SetApplicationPackageAssociationRequest,
      response: ApplicationPackageAssociation,
    }),
    'ApplicationPackageRegistry.DeleteAssociation': packagesRpc({
      method: 'DeleteAssociation',
      http: [{ verb: 'DELETE', path: DEVICE.replaceAll('{ids.', '{') }],
      entity: applicationAt('end_device_ids.application_ids.application_id'),
      rights: packages,
      request: ApplicationPackageAssociationIdentifiers,
      response: Empty,
    }),
    'ApplicationPackageRegistry.GetDefaultAssociation': packagesRpc({
      method: 'GetDefaultAssociation',
      http: [{ verb: 'GET', path: DEFAULT }],
      entity: applicationAt('ids.application_ids.application_id'),
      rights: packages,
      request: GetApplicationPackageDefaultAssociationRequest,
      response: ApplicationPackageDefaultAssociation,
    }),
    'ApplicationPackageRegistry.ListDefaultAssociations': packagesRpc({
      method: 'ListDefaultAssociations',
      http: [{ verb: 'GET', path: '/as/applications/{ids.application_id}/packages/associations' }],
      entity: applicationAt('ids.application_id'),
      rights: packages,
      request: ListApplicationPackageDefaultAssociationRequest,
      response: ApplicationPackageDefaultAssociations,
      paginated: true,
    }),
    'ApplicationPackageRegistry.SetDefaultAssociation': packagesRpc({
      method: 'SetDefaultAssociation',
      http: [{ verb: 'PUT', path: DEFAULT.replaceAll('{ids.', '{default.ids.'), body: '*' }],
      entity: applicationAt('default.ids.application_ids.application_id'),
      rights: packages,
      request: SetApplicationPackageDefaultAssociationRequest,
      response: ApplicationPackageDefaultAssociation,
    }),
    'ApplicationPackageRegistry.DeleteDefaultAssociation': packagesRpc({
      method: 'DeleteDefaultAssociation',
      http: [{ verb: 'DELETE', path: DEFAULT.replaceAll('{ids.', '{') }],
      entity: applicationAt('application_ids.application_id'),
      rights: packages,
      request: ApplicationPackageDefaultAssociationIdentifiers,
      response: Empty,
    }),
    /** A server stream answered at once: the AS replies `{"results":[…]}`, the gateway writes one `{"result":…}` line each. */
    'ApplicationUpStorage.GetStoredApplicationUp': storageRpc({
      method: 'GetStoredApplicationUp',
      http: [
        { verb: 'GET', path: STORED_DEVICE },
        { verb: 'GET', path: STORED_APP },
      ],
      entity: applicationAt('application_ids.application_id'),
      orEntity: byDevice,
      rights: traffic,
      request: GetStoredApplicationUpRequest,
      response: ApplicationUp,
      streamOf: 'results',
    }),
    'ApplicationUpStorage.GetStoredApplicationUpCount': storageRpc({
      method: 'GetStoredApplicationUpCount',
      http: [
        { verb: 'GET', path: `${STORED_DEVICE}/count` },
        { verb: 'GET', path: `${STORED_APP}/count` },
      ],
      entity: applicationAt('application_ids.application_id'),
      orEntity: byDevice,
      rights: traffic,
      request: GetStoredApplicationUpCountRequest,
      response: GetStoredApplicationUpCountResponse,
    }),
  } satisfies Record<string, RpcDefinition>;
}
