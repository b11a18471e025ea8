/**
 * The import's input: a file of devices, JSON lines (one TTS EndDevice per line, bare or as
 * `{"end_device": {...}}`, as `devices export` writes) or CSV (`csv.ts`), read line by line so a
 * large file is never held whole. Every device is put in the application given on the command
 * line, whatever its line says (an export of one application imports into another).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { CsvColumns } from './csv';
import { CliError } from './errors';
import { type DeviceRef, isObject, type JsonObject, parseDescription } from './split';

export type DeviceFormat = 'jsonl' | 'csv';

/** One non-empty line of the file: a device, or why it is not one. */
export type DeviceLine = { line: number; device: JsonObject; ref: DeviceRef } | { line: number; error: string; deviceId?: string };

/** `--format`, else by the file name: `.csv` is CSV, anything else JSON lines. */
export function formatOf(path: string, explicit?: DeviceFormat): DeviceFormat {
  return explicit ?? (/\.csv$/i.test(path) ? 'csv' : 'jsonl');
}

/** The description with its application replaced by `applicationId`. */
function intoApplication(device: unknown, applicationId: string): unknown {
  if (!isObject(device) || !isObject(device.ids)) return device;
  return { ...device, ids: { ...device.ids, application_ids: { application_id: applicationId } } };
}

/** One JSON line → a device of `applicationId`; throws an Error saying what is wrong. */
export function parseJsonLine(text: string, applicationId: string): { device: JsonObject; ref: DeviceRef } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`not valid JSON: ${(err as Error).message}`);
  }
  const device = isObject(json) && isObject(json.end_device) ? json.end_device : json;
  return parseDescription(intoApplication(device, applicationId));
}

/** The device ID a bad line names, when it names one, for the report. */
function deviceIdOf(text: string): string | undefined {
  const match = /"device_id"\s*:\s*"([^"]*)"/.exec(text) ?? /^([a-z0-9](?:[-]?[a-z0-9]){1,35})\s*,/.exec(text);
  return match?.[1];
}

async function* lines(path: string): AsyncGenerator<{ line: number; text: string }> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const reader = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of reader) {
      line++;
      if (text.trim() !== '') yield { line, text };
    }
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  } finally {
    reader.close();
    stream.destroy();
  }
}

/**
 * Counts the devices (non-empty lines, less the CSV header) and checks the CSV header, before
 * anything is sent: an unknown column refuses the file.
 */
export async function inspectDeviceFile(path: string, format: DeviceFormat): Promise<{ total: number }> {
  let total = 0;
  let header = format === 'csv';
  for await (const { line, text } of lines(path)) {
    if (header) {
      try {
        CsvColumns.fromHeader(text);
      } catch (err) {
        throw new CliError(`${path}:${line}: ${(err as Error).message}; nothing was imported`);
      }
      header = false;
      continue;
    }
    total++;
  }
  return { total };
}

/** The file's devices, line by line, each in `applicationId`. */
export async function* readDeviceFile(path: string, format: DeviceFormat, applicationId: string): AsyncGenerator<DeviceLine> {
  let columns: CsvColumns | undefined;
  for await (const { line, text } of lines(path)) {
    try {
      if (format === 'jsonl') {
        yield { line, ...parseJsonLine(text, applicationId) };
      } else if (columns === undefined) {
        columns = CsvColumns.fromHeader(text);
      } else {
        const device = intoApplication(columns.toDevice(text), applicationId);
        yield { line, ...parseDescription(device) };
      }
    } catch (err) {
      if (err instanceof CliError) throw err;
      yield { line, error: (err as Error).message, deviceId: deviceIdOf(text) };
    }
  }
}
