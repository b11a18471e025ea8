import { Right } from '../rpc/rights';

/** One kind of event, defined once by the component that emits it (TTS `events.Define`). */
export interface EventDefinition {
  name: string;
  description: string;
  /** Rights of which a subscriber needs one on the event's entity to see it. */
  visibility: Right[];
  /** Device events also reach subscribers of the device's application (TTS `WithPropagateToParent`). */
  propagateToParent: boolean;
  /** `@type` of its data (`google.protobuf.Value`, `ttn.lorawan.v3.APIKey`, …); absent: no data. */
  dataType?: string;
  /**
   * Its data is a traffic message (a frame with its metadata, an ApplicationUp, a downlink): under
   * EVENTS_DATA=watched it is written only while an events stream watches one of the event's
   * entities (`EventWatch` of @lorawan/component), else the event goes without it.
   */
  trafficData: boolean;
}

const registry = new Map<string, EventDefinition>();

export function defineEvent(
  name: string,
  description: string,
  options: { visibility: Right[]; propagateToParent?: boolean; dataType?: string; trafficData?: boolean },
): EventDefinition {
  if (registry.has(name)) throw new Error(`event ${name} is defined twice`);
  const def: EventDefinition = {
    name,
    description,
    visibility: options.visibility,
    propagateToParent: options.propagateToParent ?? false,
    dataType: options.dataType,
    trafficData: options.trafficData ?? false,
  };
  registry.set(name, def);
  return def;
}

/** Every defined event, by name (what `names` filters of a stream may name or match). */
export function eventDefinitions(): ReadonlyMap<string, EventDefinition> {
  return registry;
}

export const VALUE_TYPE = 'google.protobuf.Value';

/**
 * `<prefix>.create|update|delete|batch.delete` of a device registry: update data = the request's
 * field-mask paths; a batch delete is one event about the application, its data the identifiers of
 * the devices deleted (TTS `evtBatchDeleteEndDevices`).
 */
export function deviceRegistryEvents(prefix: string, registry: string) {
  const visibility = [Right.RIGHT_APPLICATION_DEVICES_READ];
  return {
    create: defineEvent(`${prefix}.create`, `create end device in the ${registry}`, { visibility, propagateToParent: true }),
    update: defineEvent(`${prefix}.update`, `update end device in the ${registry}`, { visibility, propagateToParent: true, dataType: VALUE_TYPE }),
    delete: defineEvent(`${prefix}.delete`, `delete end device from the ${registry}`, { visibility, propagateToParent: true }),
    batchDelete: defineEvent(`${prefix}.batch.delete`, `batch delete end devices from the ${registry}`, {
      visibility,
      propagateToParent: true,
      dataType: 'ttn.lorawan.v3.EndDeviceIdentifiersList',
    }),
  };
}

type EntityEvents = { create: EventDefinition; update: EventDefinition; delete: EventDefinition };
type RestorableEntityEvents = EntityEvents & { restore: EventDefinition; purge: EventDefinition };

/** `<entity>.create|update|delete|restore|purge` of an IS entity registry. */
export function entityRegistryEvents(entity: string, visibility: Right[], extra: { restore: true }): RestorableEntityEvents;
export function entityRegistryEvents(entity: string, visibility: Right[], extra?: { restore?: false }): EntityEvents;
export function entityRegistryEvents(entity: string, visibility: Right[], extra: { restore?: boolean } = {}): EntityEvents | RestorableEntityEvents {
  return {
    create: defineEvent(`${entity}.create`, `create ${entity}`, { visibility }),
    update: defineEvent(`${entity}.update`, `update ${entity}`, { visibility, dataType: VALUE_TYPE }),
    delete: defineEvent(`${entity}.delete`, `delete ${entity}`, { visibility }),
    ...(extra.restore
      ? {
          restore: defineEvent(`${entity}.restore`, `restore ${entity}`, { visibility }),
          purge: defineEvent(`${entity}.purge`, `purge ${entity}`, { visibility }),
        }
      : {}),
  };
}

/** `<entity>.api-key.create|update|delete`: data = the APIKey without its secret. */
export function apiKeyEvents(entity: string, visibility: Right[]) {
  const dataType = 'ttn.lorawan.v3.APIKey';
  return {
    create: defineEvent(`${entity}.api-key.create`, `create ${entity} API key`, { visibility, dataType }),
    update: defineEvent(`${entity}.api-key.update`, `update ${entity} API key`, { visibility, dataType }),
    delete: defineEvent(`${entity}.api-key.delete`, `delete ${entity} API key`, { visibility }),
  };
}

/**
 * `<entity>.collaborator.update|delete` (TTS `<entity>_access.go`): identifiers = the entity's and
 * the collaborator's; update data = the Collaborator as set, delete has none.
 */
export function collaboratorEvents(entity: string, visibility: Right[]) {
  return {
    update: defineEvent(`${entity}.collaborator.update`, `update ${entity} collaborator`, { visibility, dataType: 'ttn.lorawan.v3.Collaborator' }),
    delete: defineEvent(`${entity}.collaborator.delete`, `delete ${entity} collaborator`, { visibility }),
  };
}
