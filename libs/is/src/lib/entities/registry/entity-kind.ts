import type { EntityKind, IS_EVENTS, OrganizationOrUserIdentifiers, Right } from '@lorawan/api';
import type { StackError } from '@lorawan/errors';
import type { Contact } from '../common/contacts';
import type { EntityListQuery } from '../common/entity-list';
import type { UpdatePathRules } from '../common/update-paths';
import type { CreateResult, EntityStore, IdKey, IdsOf, StoredEntity } from './entity.model';

export type { IdKey, IdsOf, StoredEntity } from './entity.model';

/** `application_ids`, …: the field under which a request holds the entity's identifiers. */
export type IdsKey<K extends EntityKind> = `${K}_ids`;
/** `applications`, …: the field under which a List answers the entities. */
export type ListKey<K extends EntityKind> = `${K}s`;

/** Contacts as requests give them (users or organizations). */
export interface ContactFields {
  administrative_contact?: OrganizationOrUserIdentifiers;
  technical_contact?: OrganizationOrUserIdentifiers;
}

/** Contacts as stored. */
export interface StoredContacts {
  administrative_contact?: Contact;
  technical_contact?: Contact;
}

/** The fields of a request's entity the IS stores as such: what a kind's `pick` answers. */
export type PickedFields<M> = Omit<M, 'created_at' | 'updated_at' | 'administrative_contact' | 'technical_contact'>;

/** `<Kind>Registry.Get`, `.Update`: the entity's identifiers (or the entity) and a field mask. */
export type FieldMasked = { field_mask?: { paths?: readonly string[] } };
export type GetRequestOf<K extends EntityKind> = { [P in IdsKey<K>]: IdsOf<K> } & FieldMasked;
export type UpdateRequestOf<K extends EntityKind, W> = { [P in K]: W } & FieldMasked;
export type CreateRequestOf<K extends EntityKind, W> = { [P in K]: W } & { collaborator?: OrganizationOrUserIdentifiers };
export type ListRequestOf = FieldMasked & { collaborator?: OrganizationOrUserIdentifiers; order?: string; limit?: number; page?: number; deleted?: boolean };
export type ListAnswerOf<K extends EntityKind, M> = { [P in ListKey<K>]?: Partial<M>[] };

/** A store's answer to a removal: a boolean, or why not (not found, or blocked by `count` dependants). */
export type RemovalOutcome = boolean | { ok: true } | { ok: false; reason: 'not_found' } | { ok: false; reason: string; count: number };
/** A store's answer to a Create: done, the ID is taken, or a kind's own conflict `X` (a gateway's EUI). */
export type CreateOutcome<X> = CreateResult | X;

/** What the generic registry asks of every entity store (see `TypeOrmEntityStore`). */
export interface RegistryStore<M> extends EntityStore<M> {
  softDelete(id: string, deletedAt: string): Promise<RemovalOutcome>;
}

/** …and of the stores of entities with collaborators, which can be restored and purged. */
export interface CollaboratedStore<K extends EntityKind, M> extends RegistryStore<M> {
  list(query: EntityListQuery<string>): Promise<{ [P in ListKey<K>]: M[] } & { total: number }>;
  restore(id: string): Promise<boolean>;
  purge(id: string): Promise<RemovalOutcome>;
}

/** The registries of kinds with collaborators, which restore and purge too. */
export type CollaboratedRegistryName = 'ApplicationRegistry' | 'GatewayRegistry' | 'ClientRegistry' | 'OrganizationRegistry';
export type RegistryName = CollaboratedRegistryName | 'UserRegistry';

/**
 * The declaration of one entity kind (TTS `pkg/identityserver/<kind>_registry.go`): the names the
 * generic registry needs; what a kind does differently are the hooks its service overrides.
 */
export interface EntityKindSpec<K extends EntityKind, M extends StoredEntity<K>, W> {
  kind: K;
  /** The RPC service: its field-mask paths are `ALLOWED_PATHS['<registry>.Get|List|Update']`, its handlers `'<registry>.<Method>'`. */
  registry: RegistryName;
  idKey: IdKey<K>;
  idsKey: IdsKey<K>;
  listKey: ListKey<K>;
  events: Pick<(typeof IS_EVENTS)['application'], 'create' | 'update' | 'delete'> & Partial<(typeof IS_EVENTS)['application']>;
  updateRules: UpdatePathRules;
  /** The request's fields the IS stores as such (not contacts, which depend on the operation). */
  pick(entity: W): PickedFields<M>;
  notFound(id: string): StackError;
  /** Why a delete or purge the store refused with `count` dependants is refused. */
  removalBlocked?(count: number): StackError;
}

/** The declaration of a kind with collaborators: its Lists cover a collaborator's entities. */
export interface CollaboratedKindSpec<K extends EntityKind, M extends StoredEntity<K>, W> extends EntityKindSpec<K, M, W> {
  registry: CollaboratedRegistryName;
  events: (typeof IS_EVENTS)['application'];
  /** The right on a user a List of its entities needs; the right on an entry to see more than its identifiers. */
  listRight: Right;
  infoRight: Right;
  /** The entity's secret paths (derived from the contract) and the right on an entry a List needs to show them (TTS nils them out otherwise). */
  secrets?: ListSecrets;
}

export interface ListSecrets {
  paths: readonly string[];
  right: Right;
}

/** What a declaration states; the field names follow from the kind. */
type DeclaredSpec<S> = Omit<S, 'idKey' | 'idsKey' | 'listKey'>;

/** The names that follow from the kind: `<kind>_id`, `<kind>_ids`, `<kind>s`. */
function kindKeys<K extends EntityKind>(kind: K): { idKey: IdKey<K>; idsKey: IdsKey<K>; listKey: ListKey<K> } {
  return { idKey: `${kind}_id`, idsKey: `${kind}_ids`, listKey: `${kind}s` };
}

/** Declares an entity kind. */
export function entityKind<K extends EntityKind, M extends StoredEntity<K>, W>(spec: DeclaredSpec<EntityKindSpec<K, M, W>>): EntityKindSpec<K, M, W> {
  return { ...spec, ...kindKeys(spec.kind) };
}

/**
 * Declares a kind with collaborators: its identifiers are read-only, its timestamps ignored and
 * its contacts replaced whole by an Update.
 */
export function collaboratedKind<K extends EntityKind, M extends StoredEntity<K>, W>(
  spec: Omit<DeclaredSpec<CollaboratedKindSpec<K, M, W>>, 'updateRules'>,
): CollaboratedKindSpec<K, M, W> {
  const { idKey } = kindKeys(spec.kind);
  return {
    ...spec,
    ...kindKeys(spec.kind),
    updateRules: {
      readOnly: ['ids', `ids.${idKey}`],
      ignored: ['created_at', 'updated_at', 'deleted_at'],
      whole: ['administrative_contact', 'technical_contact'],
    },
  };
}
