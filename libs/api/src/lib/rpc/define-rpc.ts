import type { ClassConstructor } from 'class-transformer';
import { withDeviceKeyRights } from './device-key-rights';
import { withSecretRights } from './secret-rights';
import type { EntityKind, Right } from './rights';

export type ComponentName = 'is' | 'js' | 'ns' | 'as' | 'events' | 'gs';
export const COMPONENTS: readonly ComponentName[] = ['is', 'js', 'ns', 'as', 'events', 'gs'];

export type HttpVerb = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** One HTTP binding of an RPC, with grpc-gateway semantics: `{a.b}` path variables, `body: '*'` = whole request. */
export interface HttpBinding {
  verb: HttpVerb;
  /** Path below `/api/v3`, with `{field.path}` variables named by the request message field path. */
  path: string;
  body?: '*';
}

export interface RpcDefinition<Req extends object = object, Res extends object = object> {
  service: string;
  method: string;
  /** `Service.Method`: the RPC's key in the table, and its label in logs and metrics. */
  name: string;
  component: ComponentName;
  /** `rpc.<component>.<Service>.<Method>`: the transport subject (queue group = component). */
  subject: string;
  http: HttpBinding[];
  /**
   * The entity the rights are checked on: its kind and the request field holding its ID. The
   * caller must hold at least one right on it (else `no_<kind>_rights`) and every one of `rights`
   * (else `insufficient_<kind>_rights`). `optional`: when the field is empty the RPC is about the
   * caller itself (e.g. list my applications) and its handler decides. Absent: authentication is
   * enough, the handler checks the rest (or `adminOnly`).
   */
  entity?: { kind: EntityKind; path: string; optional?: boolean };
  /**
   * A batch about several entities of one kind (TTS `AssertGatewayBatchRights`): the list at
   * `path` of the request, each item's ID at `field`. The gateway resolves the caller's rights on
   * each into `entity_rights`; the caller needs every one of `rights` on every one of them (else
   * `no_<kind>_rights` / `insufficient_<kind>_rights` naming the first that lacks them).
   */
  entities?: { kind: EntityKind; path: string; field: string };
  /** Rights the caller needs on the request's entity. */
  rights: Right[];
  /**
   * The entity the rights are checked on instead when the request names it, with the rights needed
   * there: an organization's routes of a user's RPC (`POST /organizations/{…}/applications`
   * beside `/users/{…}/applications`, TTS's `OrganizationOrUserIdentifiers` collaborator).
   */
  orEntity?: { kind: EntityKind; path: string; rights: Right[] };
  /**
   * A second way to be allowed, decided by the handler because it needs the state the request
   * changes: holding `rights` on the entity at `path`, when the request names one (an
   * organization's members taking it off an application it collaborates on). Such a request is
   * resolved and guarded for its caller only (`rightsTarget` answers none); the handler checks
   * `rights` on `entity` or these, and answers the errors the guard would have.
   */
  orEntityByHandler?: { kind: EntityKind; path: string; rights: Right[] };
  /** Only admin users (TTS `is_admin`). */
  adminOnly?: boolean;
  /** Internal RPC without a caller (the gateway's credential lookup); never bound to HTTP. */
  unauthenticated?: boolean;
  /**
   * Open to anyone, with or without a credential (TTS's `Configuration` service): the gateway
   * forwards it without authenticating (no caller), the component checks no rights. Nothing an
   * entity owns may be served this way.
   */
  public?: boolean;
  /** Further rights needed when the request's field mask covers one of `paths` (key material, queues). */
  maskRights?: MaskRight[];
  /**
   * Where the field masks of `maskRights` are when the request carries several (a batch): the list
   * field whose items each have a `field_mask` (`requests`); the rights are the union over them.
   * Absent: the request's own `field_mask`.
   */
  fieldMasksAt?: string;
  request: ClassConstructor<Req>;
  /**
   * The answer's message (`Empty` for `{}`; a stream's: each message's `result`), internal RPCs
   * included: the OpenAPI document's response schema, and the answer type of `ResponseOf` that
   * callers get from `RpcInvoker.invoke`.
   */
  response: ClassConstructor<Res>;
  /** Responses carry a total count, exposed as `X-Total-Count`. */
  paginated?: boolean;
  /**
   * A streaming RPC (`POST /events`): the gateway serves it with its own handler (a long-lived
   * response of framed messages), not as a request/reply.
   */
  stream?: boolean;
  /**
   * A server-streaming RPC answered a page at a time: each reply holds messages in the list field
   * named here (`{"results":[…]}`) and, while more follow, a `continuation_token`, with which the
   * gateway asks for the next page (the request again, the token set). The gateway streams the
   * messages as grpc-gateway does (`{"result":…}` lines; an error after the first page ends the
   * stream with `{"error":…}`); an error of the first page is answered as usual.
   */
  streamOf?: string;
  /** The HTTP answer to success is 200 with an empty body (TTS's plain webhook handlers), not `{}`. */
  emptyResponse?: boolean;
  /** Errors (`namespace:name`) answered with this HTTP status and an empty body (a paused webhook → 406). */
  httpStatusFor?: Record<string, number>;
}

/** The rights entity of an RPC: an application whose ID is at `path` of the request. */
export const applicationAt = (path: string) => ({ kind: 'application' as const, path });

/** The organization a Create or List names as collaborator instead of a user, with the right needed on it. */
export const byOrganization = (right: Right) => ({ kind: 'organization' as const, path: 'collaborator.organization_ids.organization_id', rights: [right] });

export interface MaskRight {
  paths: readonly string[];
  rights: Right[];
}

/** An RPC as the table writes it: everything but what `defineRpc` derives. */
export type RpcSpec<Req extends object = object, Res extends object = object> = Omit<RpcDefinition<Req, Res>, 'name' | 'subject'>;

/**
 * Defines an RPC of the table: its name and subject are derived from the component, service and
 * method (`rpc.<component>.<Service>.<Method>`), so routes, handlers and subjects cannot disagree;
 * an RPC that reads or writes end devices through a field mask gets the key rights
 * (`withDeviceKeyRights`), so no device route can leave key material unguarded; one that reads or
 * writes an entity's `Secret` fields gets that entity's secrets rights (`withSecretRights`).
 */
export function defineRpc<Req extends object, Res extends object = object>(def: RpcSpec<Req, Res>): RpcDefinition<Req, Res> {
  return withSecretRights(withDeviceKeyRights({ ...def, name: `${def.service}.${def.method}`, subject: rpcSubject(def.component, def.service, def.method) }));
}

/** `rpc.<component>.<Service>.<Method>`: the subject an RPC (or a component's health check) is served on. */
export function rpcSubject(component: ComponentName, service: string, method: string): string {
  return `rpc.${component}.${service}.${method}`;
}

/** The `Service.Method` a subject of `rpcSubject` names (metrics and log lines); other subjects as they are. */
export function rpcNameOfSubject(subject: string): string {
  const parts = subject.split('.');
  return parts.length === 4 && parts[0] === 'rpc' ? `${parts[2]}.${parts[3]}` : subject;
}
