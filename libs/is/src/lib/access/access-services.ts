import type { EntityKind } from '@lorawan/api';

/** The `<Entity>Access` service of each entity kind (TTS `ApplicationAccess`, …): rights, API keys, collaborators. */
export const ACCESS_SERVICES = {
  application: 'ApplicationAccess',
  gateway: 'GatewayAccess',
  user: 'UserAccess',
  client: 'ClientAccess',
  organization: 'OrganizationAccess',
} as const satisfies Record<EntityKind, string>;

/** An `<Entity>Access` request: `{<kind>_id}` (ListRights takes the entity's identifiers) or `{<kind>_ids: {<kind>_id}}` (the others). */
export type Identified = Record<string, unknown>;

/** The ID of the entity of `kind` a request names (`nested`: under `<kind>_ids`). */
export function requestedId(kind: EntityKind, req: Identified, nested: boolean): string {
  const ids = (nested ? req[`${kind}_ids`] : req) as Record<string, string>;
  return ids[`${kind}_id`];
}
