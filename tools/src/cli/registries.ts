import { ALLOWED_PATHS, KEY_PATHS, QUEUE_PATHS } from '@lorawan/api';
import { CliError } from './errors';
import { type DeviceRef, type SetAllowedPaths, topLevelPaths } from './split';

/** The four end-device registries, in the spec's registration order. */
export type RegistryName = 'IS' | 'JS' | 'NS' | 'AS';

export const REGISTRY_TITLES: Record<RegistryName, string> = {
  IS: 'Identity Server',
  JS: 'Join Server',
  NS: 'Network Server',
  AS: 'Application Server',
};

/** URL prefix below `/api/v3` (wire contract §3). */
const PREFIXES: Record<RegistryName, string> = { IS: '', JS: '/js', NS: '/ns', AS: '/as' };

/** The RPC service of each registry, as in `ALLOWED_PATHS` keys (`<Service>.<Method>`). */
const SERVICES: Record<RegistryName, string> = {
  IS: 'EndDeviceRegistry',
  JS: 'JsEndDeviceRegistry',
  NS: 'NsEndDeviceRegistry',
  AS: 'AsEndDeviceRegistry',
};

const segment = encodeURIComponent;

export function devicesPath(registry: RegistryName, applicationId: string): string {
  return `/api/v3${PREFIXES[registry]}/applications/${segment(applicationId)}/devices`;
}

/** The batch routes (our extension): IS `POST` create, JS/NS/AS `PUT` set, TTS's batch Get/Delete. */
export function batchPath(registry: RegistryName, applicationId: string): string {
  return `${devicesPath(registry, applicationId)}/batch`;
}

export function devicePath(registry: RegistryName, ref: DeviceRef): string {
  return `${devicesPath(registry, ref.applicationId)}/${segment(ref.deviceId)}`;
}

/**
 * The contract's allowed field-mask paths of one RPC. Looked up by name: ALLOWED_PATHS is typed
 * with the keys it has, and the JS/NS/AS keys arrive with those registries; a build without them
 * cannot compute masks, which is said plainly rather than guessed.
 */
export function allowedPaths(registry: RegistryName, method: 'Get' | 'Set' | 'List'): ReadonlySet<string> {
  const rpc = `${SERVICES[registry]}.${method}`;
  const paths = (ALLOWED_PATHS as Record<string, ReadonlySet<string> | undefined>)[rpc];
  if (!paths) throw new CliError(`this build has no allowed field-mask paths for ${rpc} (ALLOWED_PATHS of @lorawan/api)`);
  return paths;
}

export function setAllowedPaths(): SetAllowedPaths {
  return { js: allowedPaths('JS', 'Set'), ns: allowedPaths('NS', 'Set'), as: allowedPaths('AS', 'Set') };
}

/**
 * The Get mask of a registry: every IS path (the IS answers only what is asked), the top-level
 * paths for the others, which select the same and keep the query string short (the NS has 586).
 */
export function getMask(registry: RegistryName): string {
  const paths = allowedPaths(registry, 'Get');
  return (registry === 'IS' ? [...paths].sort() : topLevelPaths(paths)).join(',');
}

/** The IS List mask: every IS path, so the IS part of each listed device is complete. */
export function listMask(): string {
  return [...allowedPaths('IS', 'List')].sort().join(',');
}

/**
 * The export's Get masks of the JS, NS and AS: every allowed path except the downlink queues (not
 * registration data, and they need RIGHT_APPLICATION_TRAFFIC_READ) and, without `withKeys`, key
 * material (RIGHT_APPLICATION_DEVICES_READ_KEYS). Each kept path is given by its shortest allowed
 * prefix that covers nothing left out, so the query string stays short.
 */
export function exportMask(registry: 'JS' | 'NS' | 'AS', withKeys: boolean): string {
  const excluded: string[] = [...QUEUE_PATHS, ...(withKeys ? [] : KEY_PATHS.read)];
  const allowed = allowedPaths(registry, 'Get');
  const touches = (path: string) => excluded.some((x) => x === path || x.startsWith(`${path}.`) || path.startsWith(`${x}.`));
  const kept = [...allowed].filter((p) => !touches(p));
  const keptSet = new Set(kept);
  const covered = (path: string) => {
    const parts = path.split('.');
    return parts.slice(0, -1).some((_, i) => keptSet.has(parts.slice(0, i + 1).join('.')));
  };
  return kept
    .filter((p) => !covered(p))
    .sort()
    .join(',');
}
