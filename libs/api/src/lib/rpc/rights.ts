import { defineEnum } from '../enums/enum';

/** `ttn.lorawan.v3.Right`: TTS's right names and numbers (`api/ttn/lorawan/v3/rights.proto`). */
export const RIGHT_NUMBERS = {
  RIGHT_USER_INFO: 1,
  RIGHT_USER_SETTINGS_BASIC: 2,
  RIGHT_USER_SETTINGS_API_KEYS: 3,
  RIGHT_USER_DELETE: 4,
  RIGHT_USER_AUTHORIZED_CLIENTS: 5,
  RIGHT_USER_APPLICATIONS_LIST: 6,
  RIGHT_USER_APPLICATIONS_CREATE: 7,
  RIGHT_USER_GATEWAYS_LIST: 8,
  RIGHT_USER_GATEWAYS_CREATE: 9,
  RIGHT_USER_CLIENTS_LIST: 10,
  RIGHT_USER_CLIENTS_CREATE: 11,
  RIGHT_USER_ORGANIZATIONS_LIST: 12,
  RIGHT_USER_ORGANIZATIONS_CREATE: 13,
  RIGHT_USER_NOTIFICATIONS_READ: 59,
  RIGHT_USER_ALL: 14,
  RIGHT_APPLICATION_INFO: 15,
  RIGHT_APPLICATION_SETTINGS_BASIC: 16,
  RIGHT_APPLICATION_SETTINGS_API_KEYS: 17,
  RIGHT_APPLICATION_SETTINGS_COLLABORATORS: 18,
  RIGHT_APPLICATION_SETTINGS_PACKAGES: 56,
  RIGHT_APPLICATION_DELETE: 19,
  RIGHT_APPLICATION_DEVICES_READ: 20,
  RIGHT_APPLICATION_DEVICES_WRITE: 21,
  RIGHT_APPLICATION_DEVICES_READ_KEYS: 22,
  RIGHT_APPLICATION_DEVICES_WRITE_KEYS: 23,
  RIGHT_APPLICATION_TRAFFIC_READ: 24,
  RIGHT_APPLICATION_TRAFFIC_UP_WRITE: 25,
  RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE: 26,
  RIGHT_APPLICATION_LINK: 27,
  RIGHT_APPLICATION_ALL: 28,
  RIGHT_CLIENT_ALL: 29,
  RIGHT_CLIENT_INFO: 60,
  RIGHT_CLIENT_SETTINGS_BASIC: 61,
  RIGHT_CLIENT_SETTINGS_COLLABORATORS: 62,
  RIGHT_CLIENT_DELETE: 63,
  RIGHT_GATEWAY_INFO: 30,
  RIGHT_GATEWAY_SETTINGS_BASIC: 31,
  RIGHT_GATEWAY_SETTINGS_API_KEYS: 32,
  RIGHT_GATEWAY_SETTINGS_COLLABORATORS: 33,
  RIGHT_GATEWAY_DELETE: 34,
  RIGHT_GATEWAY_TRAFFIC_READ: 35,
  RIGHT_GATEWAY_TRAFFIC_DOWN_WRITE: 36,
  RIGHT_GATEWAY_LINK: 37,
  RIGHT_GATEWAY_STATUS_READ: 38,
  RIGHT_GATEWAY_LOCATION_READ: 39,
  RIGHT_GATEWAY_WRITE_SECRETS: 57,
  RIGHT_GATEWAY_READ_SECRETS: 58,
  RIGHT_GATEWAY_ALL: 40,
  RIGHT_ORGANIZATION_INFO: 41,
  RIGHT_ORGANIZATION_SETTINGS_BASIC: 42,
  RIGHT_ORGANIZATION_SETTINGS_API_KEYS: 43,
  RIGHT_ORGANIZATION_SETTINGS_MEMBERS: 44,
  RIGHT_ORGANIZATION_DELETE: 45,
  RIGHT_ORGANIZATION_APPLICATIONS_LIST: 46,
  RIGHT_ORGANIZATION_APPLICATIONS_CREATE: 47,
  RIGHT_ORGANIZATION_GATEWAYS_LIST: 48,
  RIGHT_ORGANIZATION_GATEWAYS_CREATE: 49,
  RIGHT_ORGANIZATION_CLIENTS_LIST: 50,
  RIGHT_ORGANIZATION_CLIENTS_CREATE: 51,
  RIGHT_ORGANIZATION_ADD_AS_COLLABORATOR: 52,
  RIGHT_ORGANIZATION_ALL: 53,
  RIGHT_SEND_INVITES: 54,
  RIGHT_ALL: 55,
} as const;

export type Right = keyof typeof RIGHT_NUMBERS;

/** Every right by name: `Right.RIGHT_APPLICATION_INFO === 'RIGHT_APPLICATION_INFO'`. */
export const Right = Object.fromEntries(Object.keys(RIGHT_NUMBERS).map((r) => [r, r])) as { readonly [R in Right]: R };

/** The enum as the JSON API reads it (names, numbers, or names without `RIGHT_`). */
export const RightEnum = defineEnum<Right>('Right', RIGHT_NUMBERS, 'RIGHT_');

export const ALL_RIGHTS: readonly Right[] = Object.keys(RIGHT_NUMBERS) as Right[];

/** The entities rights are held on (TTS's `EntityIdentifiers`, the kinds this stack serves). */
export type EntityKind = 'application' | 'gateway' | 'user' | 'organization' | 'client';

export interface EntityRef {
  kind: EntityKind;
  id: string;
}

const KIND_PREFIX: Record<EntityKind, string> = {
  application: 'RIGHT_APPLICATION_',
  gateway: 'RIGHT_GATEWAY_',
  user: 'RIGHT_USER_',
  organization: 'RIGHT_ORGANIZATION_',
  client: 'RIGHT_CLIENT_',
};

/** The rights that apply to an entity of `kind` (its `RIGHT_<KIND>_*`, including the `_ALL` pseudo-right). */
export function rightsOfKind(kind: EntityKind): readonly Right[] {
  return RIGHTS_BY_KIND[kind];
}

const withPrefix = (kind: EntityKind): readonly Right[] => ALL_RIGHTS.filter((r) => r.startsWith(KIND_PREFIX[kind]));
const RIGHTS_BY_KIND: Record<EntityKind, readonly Right[]> = {
  application: withPrefix('application'),
  gateway: withPrefix('gateway'),
  user: withPrefix('user'),
  organization: withPrefix('organization'),
  client: withPrefix('client'),
};

const HELD_BY: Record<EntityKind, readonly Right[]> = {
  ...RIGHTS_BY_KIND,
  organization: [...RIGHTS_BY_KIND.organization, ...RIGHTS_BY_KIND.application, ...RIGHTS_BY_KIND.gateway, ...RIGHTS_BY_KIND.client],
};

/**
 * The rights an entity of `kind` can hold: granted to its members, its API keys, listed as the
 * rights on it (TTS `listOrganizationRights`: `AllEntityRights ∪ AllOrganizationRights`). An
 * organization's include the rights on the applications, gateways and clients it collaborates on,
 * which its members and keys use there; other kinds hold their own (`rightsOfKind`).
 */
export function rightsHeldBy(kind: EntityKind): readonly Right[] {
  return HELD_BY[kind];
}

const IMPLIED: Partial<Record<Right, readonly Right[]>> = {
  RIGHT_USER_ALL: RIGHTS_BY_KIND.user,
  RIGHT_APPLICATION_ALL: RIGHTS_BY_KIND.application,
  RIGHT_GATEWAY_ALL: RIGHTS_BY_KIND.gateway,
  RIGHT_ORGANIZATION_ALL: RIGHTS_BY_KIND.organization,
  RIGHT_CLIENT_ALL: RIGHTS_BY_KIND.client,
  RIGHT_ALL: ALL_RIGHTS,
  RIGHT_APPLICATION_LINK: ['RIGHT_APPLICATION_LINK', 'RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_TRAFFIC_READ', 'RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE'],
  RIGHT_GATEWAY_LINK: ['RIGHT_GATEWAY_LINK', 'RIGHT_GATEWAY_INFO'],
};

/** The rights together with the rights they imply (TTS `Rights.Implied`): `*_ALL`, `RIGHT_ALL`, the `*_LINK` rights. */
export function impliedRights(rights: Iterable<Right>): Set<Right> {
  const out = new Set<Right>();
  for (const r of rights) {
    out.add(r);
    for (const i of IMPLIED[r] ?? []) out.add(i);
  }
  return out;
}

/**
 * The universal rights of an admin user (TTS `AllAdminRights`): every right except the ones that
 * reveal or change secrets (device keys, gateway secrets) and the `*_ALL` pseudo-rights, so an
 * admin cannot read the keys of devices in applications it does not collaborate on.
 */
export const ALL_ADMIN_RIGHTS: readonly Right[] = ALL_RIGHTS.filter(
  (r) =>
    !/_ALL$/.test(r) &&
    !['RIGHT_APPLICATION_DEVICES_READ_KEYS', 'RIGHT_APPLICATION_DEVICES_WRITE_KEYS', 'RIGHT_GATEWAY_READ_SECRETS', 'RIGHT_GATEWAY_WRITE_SECRETS'].includes(r),
);

/** Sorted by name, as TTS lists rights. */
export function sortRights(rights: Iterable<Right>): Right[] {
  return [...rights].sort();
}
