/**
 * The part of the TTS JavaScript SDK (`ttn-lw`, 3.8.1, plain JavaScript without typings) that
 * `tts-sdk.e2e-spec.ts` drives, typed from its source (`src/service/*.js`). Each method answers
 * what The Things Stack answers (`response.data`), or rejects with its error body.
 */
declare module 'ttn-lw' {
  /** A message as the stack answers it (TTS's JSON, zero values omitted). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON of any shape
  export type Json = Record<string, any>;

  export type OrganizationOrUserIdentifiers = { user_ids: { user_id: string } } | { organization_ids: { organization_id: string } };

  export interface Collaborator {
    ids: OrganizationOrUserIdentifiers;
    rights: string[];
  }

  /** A list answer: the entries (`[]` when the stack answered none) and `X-Total-Count`. */
  export type ListOf<K extends string> = { [key in K]: Json[] } & { totalCount: number };

  /** Field mask paths: `'name,description'` or `['name', 'description']`. */
  export type Selector = string | string[];

  export interface ListParams {
    limit?: number;
    page?: number;
    order?: string;
  }

  /** `src/service/collaborators.js`: `remove` is a Set with no rights (3.8.1 has no DeleteCollaborator). */
  export interface Collaborators {
    getByUserId(entityId: string, userId: string): Promise<Json>;
    getByOrganizationId(entityId: string, organizationId: string): Promise<Json>;
    getAll(entityId: string, params?: ListParams): Promise<ListOf<'collaborators'>>;
    add(entityId: string, collaborator: Collaborator): Promise<Json>;
    update(entityId: string, collaborator: Collaborator): Promise<Json>;
    remove(entityId: string, collaborator: { ids: OrganizationOrUserIdentifiers }): Promise<Json>;
  }

  /** `src/service/api-keys.js`: `updateById` sends no field mask; `deleteById` is an update to no rights. */
  export interface ApiKeys {
    getById(entityId: string, keyId: string): Promise<Json>;
    getAll(entityId: string, params?: ListParams): Promise<ListOf<'api_keys'>>;
    create(entityId: string, key: { name?: string; rights: string[]; expires_at?: string }): Promise<Json>;
    updateById(entityId: string, keyId: string, patch: { name?: string; rights?: string[] }): Promise<Json>;
    deleteById(entityId: string, keyId: string): Promise<Json>;
  }

  /** `src/service/organizations.js`. */
  export interface Organizations {
    ApiKeys: ApiKeys;
    Collaborators: Collaborators;
    getAll(params?: ListParams, selector?: Selector): Promise<ListOf<'organizations'>>;
    getById(id: string, selector?: Selector): Promise<Json>;
    create(userId: string, organization: Json): Promise<Json>;
    updateById(id: string, patch: Json, mask?: string[]): Promise<Json>;
    deleteById(id: string): Promise<Json>;
    getRightsById(id: string): Promise<ListOf<'rights'>>;
  }

  /** `src/service/applications.js` (its `getByOrganization` and `getByCollaborator` are left out: see the spec). */
  export interface Applications {
    ApiKeys: ApiKeys;
    Collaborators: Collaborators;
    getAll(params?: ListParams, selector?: Selector): Promise<ListOf<'applications'>>;
    getById(id: string, selector?: Selector): Promise<Json>;
    /** Under the user `ownerId`, or under the organization `ownerId` when `isUserOwner` is false. */
    create(ownerId: string, application: Json, isUserOwner?: boolean): Promise<Json>;
    updateById(id: string, patch: Json, mask?: string[]): Promise<Json>;
    deleteById(id: string): Promise<Json>;
    getRightsById(id: string): Promise<ListOf<'rights'>>;
  }

  export interface StackConfig {
    is?: string;
    as?: string;
    ns?: string;
    js?: string;
    gs?: string;
  }

  /** `src/index.js`. The token is kept in a module-level singleton (`src/util/token.js`): one per loaded module. */
  export default class TtnLw {
    constructor(token: string, options: { stackConfig: StackConfig; connectionType: 'http'; defaultUserId?: string; axiosConfig?: Json });
    Applications: Applications;
    Organizations: Organizations;
  }
}
