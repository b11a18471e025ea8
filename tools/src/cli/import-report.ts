/**
 * The import's report: one JSON line per line of the input that was not registered, failed or
 * skipped, with the server's error as it answered (namespace, name, attributes, cause chain).
 * Written synchronously as each line is settled, so a killed import leaves a report of what it
 * settled; a new run starts a new report.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { StackError } from '@lorawan/errors';
import { type ApiError, CliError, detailsText, type TtsErrorDetails } from './errors';
import type { RegistryName } from './registries';

export interface ReportedError {
  /** The server's `message` (`error:<namespace>:<name> (…)`), or the CLI's own reason. */
  message: string;
  /** The HTTP status; absent when no answer came, or for the CLI's own checks. */
  http_status?: number;
  /** The TTS ErrorDetails of the answer: namespace, name, message_format, attributes, cause. */
  details?: TtsErrorDetails;
}

export interface ReportEntry {
  /** The line of the input file (1-based; a CSV's header is line 1). */
  line: number;
  device_id?: string;
  status: 'failed' | 'skipped';
  /** The registry that refused the device (absent for lines refused before any request). */
  registry?: RegistryName;
  error: ReportedError;
  /** Registries the device was deleted from again, so nothing is left half-registered. */
  rolled_back?: RegistryName[];
  /** Registries where that deletion failed too: the device is left there. */
  left_in?: RegistryName[];
}

export function reportedApiError(err: ApiError): ReportedError {
  const details = err.body?.details?.[0];
  const message = typeof err.body?.message === 'string' ? err.body.message : err.message;
  return { message, ...(err.status !== undefined ? { http_status: err.status } : {}), ...(details ? { details } : {}) };
}

/** A contract validation failure (`decodeMessage`), with its cause chain down to the field. */
export function reportedValidationError(err: StackError): ReportedError {
  const details = err.toDetails() as TtsErrorDetails;
  let leaf = details;
  while (leaf.cause) leaf = leaf.cause;
  return { message: `${detailsText(details)}: ${detailsText(leaf)}`, details };
}

/** A file opened (created or emptied) for writing; a failure is the CLI's error, naming the file. */
export function openForWriting(path: string, what: string): number {
  try {
    return openSync(path, 'w');
  } catch (err) {
    throw new CliError(`cannot write ${what} ${path}: ${(err as Error).message}`);
  }
}

export class ImportReport {
  private readonly fd: number;
  private count = 0;

  constructor(readonly path: string) {
    this.fd = openForWriting(path, 'the report');
  }

  get entries(): number {
    return this.count;
  }

  add(entry: ReportEntry): void {
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
    this.count++;
  }

  close(): void {
    closeSync(this.fd);
  }
}
