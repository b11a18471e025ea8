import { Client, CreateClientRequest, GetClientRequest, ListClientsRequest, UpdateClientRequest } from '../messages/client';
import { ClientIdentifiers } from '../messages/identifiers';
import { Clients } from '../messages/responses';
import { entityRegistryRpcs } from './entity-registry-rpcs';

/**
 * The IS's ClientRegistry of OAuth clients (TTS `client_services.proto`, rights as
 * `client_registry.go`); a client's collaborator is a user or an organization.
 */
export function clientRpcs() {
  return entityRegistryRpcs('client', {
    create: CreateClientRequest,
    get: GetClientRequest,
    list: ListClientsRequest,
    update: UpdateClientRequest,
    identifiers: ClientIdentifiers,
    entity: Client,
    entities: Clients,
  });
}
