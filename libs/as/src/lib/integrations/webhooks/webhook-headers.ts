/**
 * The headers a webhook may send (its `headers`, often the receiver's secret): checked when the
 * webhook is Set, and again on delivery (webhooks stored before these rules are sent without the
 * headers they break).
 */

/** RFC 9110 §5.6.2 `token`: the characters of a header name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 §5.5 field value: visible ASCII, obs-text, spaces and tabs; no CR, LF, NUL or other control character. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/**
 * Headers that belong to the connection, not to the message (RFC 9110 §7.6.1, with the legacy
 * `Keep-Alive` and `Proxy-Connection`), and `Host` and `Content-Length`, which the HTTP client
 * derives from the URL and the body: a webhook setting them would redirect or desynchronise the
 * request.
 */
const RESERVED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'content-length']);

/** Why a webhook may not send this header (a reason naming it), or undefined when it may. */
export function headerProblem(name: string, value: unknown): string | undefined {
  if (!TOKEN.test(name)) return `header name \`${name}\` must be an HTTP token`;
  if (RESERVED.has(name.toLowerCase())) return `header \`${name}\` is set by the HTTP client and must not be set by a webhook`;
  if (typeof value !== 'string' || !FIELD_VALUE.test(value)) {
    return `header \`${name}\` must have an HTTP field value (no CR, LF, NUL or other control characters)`;
  }
  return undefined;
}

/** The headers of a webhook that may be sent, in their order (defined as own properties, whatever their names). */
export function deliverableHeaders(headers: Record<string, string> | undefined): Array<[string, string]> {
  return Object.entries(headers ?? {}).filter(([name, value]) => headerProblem(name, value) === undefined);
}
