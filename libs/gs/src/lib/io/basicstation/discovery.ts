import { isJsonObject } from '@lorawan/api';
import { formatId6, readEui } from '@lorawan/lorawan';
import { parseStationJson, type Refused } from './json';

/**
 * Discovery (LoRa Basics Station `tcproto` "Querying the LNS Router"; TTS `lbslns/discover.go`):
 * station opens a WebSocket on `/router-info`, sends `{"router": <EUI or id6>}` and expects one
 * answer, `{"router", "muxs", "uri"}` naming the data connection's URI, or `{"router", "error"}`;
 * then it closes and connects to `uri`. The data connection's path is `/traffic/eui-<EUI>`.
 * Station 2.0.6 needs the `uri` with an explicit port and a path.
 */

/** The path station opens discovery on. */
export const ROUTER_INFO_PATH = '/router-info';
/** Prefix of the data connection's path: `/traffic/eui-<16 hex digits>`. */
export const TRAFFIC_PATH_PREFIX = '/traffic/';

/** Where the LNS's data endpoint is reached from the gateway's side. */
export interface TrafficEndpoint {
  scheme: 'ws' | 'wss';
  /** Host name (or IP address) the gateway can reach; an IPv6 address is bracketed in the URI. */
  host: string;
  port: number;
}

/** A query is a few dozen characters; anything much longer is refused unread. */
export const MAX_QUERY_TEXT = 1024;

export interface RouterInfoQuery {
  /** The `router` field as the gateway wrote it (echoed in an error answer). */
  router: unknown;
  /** Its EUI, 16 upper-case hex digits. */
  eui: string;
}

export type RouterInfoAnswer = { router: string; muxs: string; uri: string } | { router?: unknown; error: string };

/** The query's router EUI, or why it is not one (the answer then is `routerInfoError`). */
export function parseRouterInfoQuery(text: string): RouterInfoQuery | Refused {
  if (text.length > MAX_QUERY_TEXT) return { error: `router-info query larger than ${MAX_QUERY_TEXT} characters` };
  const parsed = parseStationJson(text);
  if ('error' in parsed) return { error: 'router-info query is not JSON' };
  const { value } = parsed;
  if (!isJsonObject(value) || !Object.hasOwn(value, 'router')) return { error: 'router-info query has no `router`' };
  const router = value.router;
  const eui = readEui(router);
  if (eui === undefined) return { error: 'router-info query: `router` is not an EUI or id6' };
  if (/^0+$/.test(eui)) return { error: 'router-info query: `router` is the zero EUI' };
  return { router, eui };
}

/** The URI of a gateway's data connection. */
export function trafficUri(endpoint: TrafficEndpoint, eui: string): string {
  const host = endpoint.host.includes(':') && !endpoint.host.startsWith('[') ? `[${endpoint.host}]` : endpoint.host;
  return `${endpoint.scheme}://${host}:${endpoint.port}${TRAFFIC_PATH_PREFIX}eui-${eui}`;
}

/** The answer for a known gateway: its id6, this LNS (TTS's `muxs-::0`) and the data URI. */
export function routerInfoAnswer(query: RouterInfoQuery, endpoint: TrafficEndpoint): RouterInfoAnswer {
  return { router: formatId6(query.eui), muxs: 'muxs-::0', uri: trafficUri(endpoint, query.eui) };
}

/** The answer for a query that cannot be served: malformed, an unknown gateway, refused credentials. */
export function routerInfoError(router: unknown, error: string): RouterInfoAnswer {
  // Echo only what is safe to echo: a string or number the gateway sent, nothing it could inflate.
  const echo = (typeof router === 'string' && router.length <= 64) || typeof router === 'number' ? router : undefined;
  return echo === undefined ? { error } : { router: echo, error };
}

/** The gateway EUI of a data connection's path (`/traffic/eui-B827EBFFFE6151D9`, any EUI form after `eui-`), or undefined. */
export function parseTrafficPath(path: string): string | undefined {
  const [pathname] = path.split('?');
  if (!pathname.startsWith(TRAFFIC_PATH_PREFIX)) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(pathname.slice(TRAFFIC_PATH_PREFIX.length));
  } catch {
    return undefined;
  }
  if (!id.startsWith('eui-')) return undefined;
  const eui = readEui(id.slice('eui-'.length));
  return eui === undefined || /^0+$/.test(eui) ? undefined : eui;
}
