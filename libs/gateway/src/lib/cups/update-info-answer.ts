import { Code, defineError, type StackError } from '@lorawan/errors';
import { credentialsCrc, tokenCredentials, type UpdateInfoRequest, type UpdateInfoResponse } from './update-info';

/** CUPS errors, in TTS's namespace (`pkg/basicstation/cups`). */
export const ErrCupsParse = defineError('pkg/basicstation/cups', 'parse', 'request body parsing: {reason}', Code.Aborted);
export const ErrCupsUnauthenticated = defineError('pkg/basicstation/cups', 'unauthenticated', 'call was not authenticated', Code.Unauthenticated);
export const ErrTargetCupsCredentials = defineError(
  'pkg/basicstation/cups',
  'target_cups_credentials_not_found',
  'Target CUPS credentials not found for gateway `{gateway_uid}`',
  Code.NotFound,
);
export const ErrLnsCredentials = defineError(
  'pkg/basicstation/cups',
  'lns_credentials_not_found',
  'LNS credentials not found for gateway `{gateway_uid}`',
  Code.NotFound,
);
export const ErrServerTrust = defineError('pkg/basicstation/cups', 'server_trust', 'fetch server trust for address `{address}`', Code.NotFound);
export const ErrLnsAddress = defineError(
  'pkg/basicstation/cups',
  'lns_address',
  'no LNS address for gateway `{gateway_uid}`: set its `gateway_server_address` or `CUPS_LNS_URI`',
  Code.FailedPrecondition,
);
export const ErrFieldLength = defineError('pkg/basicstation/cups', 'field_length', 'the answer cannot be encoded: {reason}', Code.InvalidArgument);
export const ErrInvalidAddress = defineError('pkg/basicstation/cups', 'invalid_address', 'invalid server address `{address}`', Code.InvalidArgument);

/** The gateway fields CUPS reads (TTS `getGatewayMask`, those this stack has): secrets as the contract holds them (`value` base64). */
export interface CupsGateway {
  ids: { gateway_id: string };
  attributes?: Record<string, string>;
  gateway_server_address?: string;
  lbs_lns_secret?: { value?: string };
  target_cups_uri?: string;
  target_cups_key?: { value?: string };
}

/** The field mask of the Get CUPS makes (reading the secrets needs RIGHT_GATEWAY_READ_SECRETS, checked by the IS). */
export const CUPS_GATEWAY_PATHS = ['attributes', 'gateway_server_address', 'lbs_lns_secret', 'target_cups_uri', 'target_cups_key'] as const;

/** What the server sends besides the gateway's fields: the default LNS address and the trust certificates (DER). */
export interface CupsSettings {
  defaultLnsUri?: string;
  /** The LNS's trust (`tc.trust`). */
  lnsTrust?: Buffer;
  /** This CUPS server's trust (`cups.trust`), also given for `target_cups_uri`. */
  cupsTrust?: Buffer;
}

/** TTS `parseAddress`: scheme (default `defaultScheme`), host and port (the scheme's default port when absent). */
export function parseServerAddress(defaultScheme: string, address: string): { scheme: string; host: string; port: string } | undefined {
  const match = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\[[^\]]+\]|[^\s/:]+)(?::(\d{1,5}))?\/?$/i.exec(address.trim());
  if (!match) return undefined;
  const scheme = (match[1] ?? defaultScheme).toLowerCase();
  const port = match[3] ?? { http: '80', ws: '1887', https: '443', wss: '8887' }[scheme] ?? '';
  return { scheme, host: match[2], port };
}

const secretText = (secret: { value?: string } | undefined): string | undefined =>
  secret?.value ? Buffer.from(secret.value, 'base64').toString('utf8') : undefined;

/**
 * The answer to a station's `update-info` (TTS `pkg/basicstation/cups/update_info.go`), from the
 * gateway's fields; a segment is sent only when the station's differs, so nothing changes →
 * an empty answer:
 *
 * - CUPS: with a `target_cups_uri` other than the station's `cupsUri`, that URI and the
 *   credentials for it (trust and `target_cups_key` as token, `target_cups_credentials_not_found`
 *   without a key); else, with a `target_cups_key`, the credentials for this server when their
 *   CRC differs from the station's `cupsCredCrc` (a rotated CUPS key).
 * - LNS: the gateway's `gateway_server_address`, else the station's `tcUri`, else the server's
 *   default, as `scheme://host:port` (TTS's defaults: `wss`, port 8887) when it differs from the
 *   station's `tcUri`; over `wss` the credentials (trust and `lbs_lns_secret` as token) when their
 *   CRC differs from `tcCredCrc` (a rotated LNS key). `lns_credentials_not_found` without a secret.
 *
 * Unlike TTS (which skips the LNS part while the gateway has CUPS credentials to hand out), both
 * parts are decided each time, so a station moved or re-keyed on one side keeps the other.
 */
export function updateInfoAnswer(req: UpdateInfoRequest, gateway: CupsGateway, settings: CupsSettings): UpdateInfoResponse | StackError {
  const uid = gateway.ids.gateway_id;
  const res: UpdateInfoResponse = {};
  const cupsKey = secretText(gateway.target_cups_key);
  const cupsCredentials = (address: string, key: string): Buffer | StackError =>
    settings.cupsTrust ? tokenCredentials(settings.cupsTrust, bearer(key)) : ErrServerTrust.with({ address });
  if (gateway.target_cups_uri && gateway.target_cups_uri !== req.cupsUri) {
    if (!cupsKey) return ErrTargetCupsCredentials.with({ gateway_uid: uid });
    const cred = cupsCredentials(gateway.target_cups_uri, cupsKey);
    if (!Buffer.isBuffer(cred)) return cred;
    res.cupsUri = gateway.target_cups_uri;
    if (credentialsCrc(cred) !== req.cupsCredCrc) res.cupsCred = cred;
  } else if (cupsKey) {
    const cred = cupsCredentials(req.cupsUri, cupsKey);
    if (!Buffer.isBuffer(cred)) return cred;
    if (credentialsCrc(cred) !== req.cupsCredCrc) res.cupsCred = cred;
  }

  const lnsKey = secretText(gateway.lbs_lns_secret);
  if (!lnsKey) return ErrLnsCredentials.with({ gateway_uid: uid });
  const address = gateway.gateway_server_address || req.tcUri || settings.defaultLnsUri;
  if (!address) return ErrLnsAddress.with({ gateway_uid: uid });
  const parsed = parseServerAddress('wss', address);
  if (!parsed) return ErrInvalidAddress.with({ address });
  const lnsUri = `${parsed.scheme}://${parsed.host}:${parsed.port}`;
  if (lnsUri !== req.tcUri) res.tcUri = lnsUri;
  // Station sends its token only over TLS: a `ws://` LNS gets no credentials (TTS likewise).
  if (parsed.scheme === 'wss') {
    if (!settings.lnsTrust) return ErrServerTrust.with({ address: lnsUri });
    const cred = tokenCredentials(settings.lnsTrust, bearer(lnsKey));
    if (credentialsCrc(cred) !== req.tcCredCrc) res.tcCred = cred;
  }
  return res;
}

/** The token as the `Authorization` header value station sends (`Bearer <key>`; a key given with its scheme kept as is). */
function bearer(key: string): string {
  return /^bearer /i.test(key) ? key : `Bearer ${key}`;
}
