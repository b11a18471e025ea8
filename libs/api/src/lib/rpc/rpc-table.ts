import { hasAnyField } from '../field-mask/field-mask';
import { getPath } from '../json/dotted-path';
import { type EntityKind, type Right } from './rights';
import { type ComponentName, type RpcDefinition, rpcSubject } from './define-rpc';
import { webhookRpcs } from './webhook-rpcs';
import { pubsubRpcs } from './pubsub-rpcs';
import { packageRpcs } from './package-rpcs';
import { appAsRpcs } from './app-as-rpcs';
import { linkRpcs } from './link-rpcs';
import { clientRpcs } from './client-rpcs';
import { organizationRpcs } from './organization-rpcs';
import { dataplaneRpcs } from './dataplane-rpcs';
import { endDeviceRpcs, componentRegistryRpcs } from './end-device-rpcs';
import { identityRpcs } from './identity-rpcs';
import { eventsRpcs } from './events-rpcs';
import { configurationRpcs } from './configuration-rpcs';
import { gsRpcs } from './gs-rpcs';

/**
 * The one RPC table: the gateway builds its routes from it, components register handlers by it.
 * Each service's RPCs are declared in a file of their own (`<service>-rpcs.ts`); the order here is
 * the gateway's route order.
 */
export const RPCS = {
  ...endDeviceRpcs(),
  ...identityRpcs(),
  ...clientRpcs(),
  ...organizationRpcs(),
  ...webhookRpcs(),
  ...pubsubRpcs(),
  ...packageRpcs(),
  ...appAsRpcs(),
  ...linkRpcs(),
  ...dataplaneRpcs(),
  ...gsRpcs(),
  ...eventsRpcs(),
  ...configurationRpcs(),
  ...componentRegistryRpcs(),
} satisfies Record<string, RpcDefinition>;

type Masked = { field_mask?: { paths?: string[] } };

/** The field-mask paths of a request: its own mask's, or the union of its items' (`fieldMasksAt`). */
function maskPathsOf(rpc: RpcDefinition, request: object): readonly string[] {
  if (!rpc.fieldMasksAt) return (request as Masked).field_mask?.paths ?? [];
  const items = (request as Record<string, unknown>)[rpc.fieldMasksAt];
  return Array.isArray(items) ? [...new Set(items.flatMap((item: Masked | null) => item?.field_mask?.paths ?? []))] : [];
}

/** The rights a request needs: the RPC's base rights plus those its field mask(s) call for. */
export function requiredRights(rpc: RpcDefinition, request: object): Right[] {
  const paths = maskPathsOf(rpc, request);
  const rights = new Set(rightsTarget(rpc, request)?.rights ?? rpc.rights);
  for (const rule of rpc.maskRights ?? []) {
    if (rule.paths.some((p) => hasAnyField(paths, p))) rule.rights.forEach((r) => rights.add(r));
  }
  return [...rights];
}

export type RpcName = keyof typeof RPCS;
export type RequestOf<N extends RpcName> = InstanceType<(typeof RPCS)[N]['request']>;
/** The answer of an RPC of the table, as its response class declares it (every RPC names one). */
export type ResponseOf<N extends RpcName> = InstanceType<NonNullable<(typeof RPCS)[N]['response']>>;

/** Health of a component (answered by every component; used by readiness probes). */
export function healthSubject(component: ComponentName): string {
  return rpcSubject(component, 'Health', 'Check');
}

const ENTITY_PATH_PARTS = new WeakMap<object, readonly string[]>();

/** The ID at an entity's path in a request, if the request holds one. */
function idAt(entity: { path: string }, request: object): string | undefined {
  let parts = ENTITY_PATH_PARTS.get(entity);
  if (!parts) ENTITY_PATH_PARTS.set(entity, (parts = entity.path.split('.')));
  const id = getPath(request, parts);
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** What a request's rights are checked on: the entity's kind, its ID (if the request holds one), and the RPC's base rights there. */
export interface RightsTarget {
  kind: EntityKind;
  id: string | undefined;
  optional: boolean;
  rights: Right[];
}

/**
 * The rights entity of a request (see `RpcDefinition.entity`): `orEntity` when the request names
 * one (an organization instead of a user), else `entity`; undefined when the RPC has neither, or
 * when the request names its `orEntityByHandler` (the handler checks the rights then).
 */
export function rightsTarget(rpc: RpcDefinition, request: object): RightsTarget | undefined {
  if (rpc.orEntityByHandler && idAt(rpc.orEntityByHandler, request) !== undefined) return undefined;
  const alternative = rpc.orEntity && idAt(rpc.orEntity, request);
  if (rpc.orEntity && alternative !== undefined) return { kind: rpc.orEntity.kind, id: alternative, optional: false, rights: rpc.orEntity.rights };
  if (!rpc.entity) return undefined;
  return { kind: rpc.entity.kind, id: idAt(rpc.entity, request), optional: rpc.entity.optional ?? false, rights: rpc.rights };
}

/** The IDs of the entities a batch request lists (`RpcDefinition.entities`), each once, in order; none for other RPCs. */
export function batchEntityIds(rpc: RpcDefinition, request: object): string[] {
  if (!rpc.entities) return [];
  const { path, field } = rpc.entities;
  const items = getPath(request, path);
  if (!Array.isArray(items)) return [];
  const ids = items.map((item: unknown) => (item !== null && typeof item === 'object' ? (item as Record<string, unknown>)[field] : undefined));
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))];
}

/** The ID of the RPC's rights entity in a request (see `rightsTarget`), if the request holds one. */
export function entityIdOf(rpc: RpcDefinition, request: object): string | undefined {
  return rightsTarget(rpc, request)?.id;
}

/** The `@MessagePattern` of an RPC of the table: its transport subject. */
export function rpcPattern(name: RpcName): string {
  return RPCS[name].subject;
}

let bySubject: Map<string, RpcDefinition> | undefined;

/** The RPC served on a subject (a `@MessagePattern`), if it is one of the table. */
export function rpcBySubject(subject: string): RpcDefinition | undefined {
  bySubject ??= new Map((Object.values(RPCS) as RpcDefinition[]).map((rpc) => [rpc.subject, rpc]));
  return bySubject.get(subject);
}

/** The correlation ID tying an API call to everything it caused: `rpc:/ttn.lorawan.v3.<Service>/<Method>:<request id>` (TTS). */
export function rpcCorrelationId(rpc: Pick<RpcDefinition, 'service' | 'method'>, requestId: string): string {
  return `rpc:/ttn.lorawan.v3.${rpc.service}/${rpc.method}:${requestId}`;
}
