/**
 * The CLI's failures, each printed without a stack trace: wrong usage (exit 2), unusable input
 * (exit 1) and API failures (exit 1), the latter with the TTS error body (wire contract §1.1).
 */

/** Wrong command line: printed with a hint to `--help`, exit code 2. */
export class UsageError extends Error {}

/** An expected failure that is not the server's answer (unreadable file, invalid JSON): exit code 1. */
export class CliError extends Error {}

/** `ErrorDetails` of a TTS error (namespace, name, message format, public attributes, cause chain). */
export interface TtsErrorDetails {
  namespace?: string;
  name?: string;
  message_format?: string;
  attributes?: Record<string, unknown>;
  code?: number;
  cause?: TtsErrorDetails;
}

/** A TTS error body: the `google.rpc.Status` the gateway writes. */
export interface TtsStatus {
  code?: number;
  message?: string;
  details?: TtsErrorDetails[];
}

/** A request that got no 2xx answer; `status` is undefined when no HTTP answer came at all. */
export class ApiError extends Error {
  constructor(
    /** `METHOD /path`, for the message. */
    readonly request: string,
    readonly status: number | undefined,
    /** The TTS error body, when the answer was one. */
    readonly body: TtsStatus | undefined,
    message: string,
  ) {
    super(message);
  }

  get notFound(): boolean {
    return this.status === 404;
  }

  /**
   * True when the request may have been applied although it failed: no answer at all, or the
   * gateway's 504 (it stopped waiting; the component may still have written).
   */
  get outcomeUnknown(): boolean {
    return this.status === undefined || this.status === 504;
  }
}

function attributeText(value: unknown): string {
  if (Array.isArray(value)) return value.map(attributeText).join(', ');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `error:<namespace>:<name> (<message with attributes filled in>)`, as TTS writes `message`. */
export function detailsText(details: TtsErrorDetails): string {
  const attributes = details.attributes ?? {};
  const message = (details.message_format ?? '').replace(/\{(\w+)\}/g, (whole, name: string) => (name in attributes ? attributeText(attributes[name]) : whole));
  return `error:${details.namespace ?? '?'}:${details.name ?? '?'}${message ? ` (${message})` : ''}`;
}

/**
 * Lines describing an API failure: the request, the status and the TTS message, then the cause
 * chain (where validation errors name the offending field) and any forbidden paths.
 */
export function describeApiError(err: ApiError): string[] {
  const lines = [`${err.request}: ${err.message}`];
  const details = err.body?.details?.[0];
  let cause = details?.cause;
  while (cause) {
    lines.push(`  cause: ${detailsText(cause)}`);
    cause = cause.cause;
  }
  const forbidden = details?.attributes?.forbidden_paths;
  if (Array.isArray(forbidden)) lines.push(`  forbidden paths: ${forbidden.join(', ')}`);
  return lines;
}
