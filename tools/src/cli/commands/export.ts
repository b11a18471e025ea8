/**
 * `devices export`: every device of an application as JSON lines, each the device merged from the
 * IS, JS, NS and AS (`devices list`, page by page), written as each page arrives. Without
 * `withKeys` no key material is asked for (the Gets leave the key paths out, so a key without
 * RIGHT_APPLICATION_DEVICES_READ_KEYS exports too); with it, a server refusing the keys stops the
 * export with that error rather than writing devices that would import without their keys.
 * Downlink queues are never exported. The output is what `devices import` reads.
 */
import type { Http } from '../client';
import { CliError, ApiError } from '../errors';
import { exportMask } from '../registries';
import type { JsonObject } from '../split';
import { listDevices } from './list';

export interface ExportOptions {
  applicationId: string;
  withKeys: boolean;
  /** Devices per IS List page (each completed by JS/NS/AS Gets). */
  pageSize: number;
}

export interface ExportSinks {
  /** One JSON line; resolves when the output can take more. */
  write(line: string): Promise<void>;
  progress: { setTotal(total: number): void; add(count: number): void };
}

/** Writes every device of the application; returns how many. */
export async function exportDevices(client: Http, options: ExportOptions, sinks: ExportSinks): Promise<number> {
  const masks = { JS: exportMask('JS', options.withKeys), NS: exportMask('NS', options.withKeys), AS: exportMask('AS', options.withKeys) };
  let count = 0;
  for (let page = 1; ; page++) {
    let result: { end_devices: JsonObject[]; total: number | undefined };
    try {
      result = await listDevices(client, options.applicationId, { limit: options.pageSize, page, masks });
    } catch (err) {
      if (options.withKeys && err instanceof ApiError && err.status === 403) {
        throw new CliError(
          `${err.request}: ${err.message}\n--with-keys needs RIGHT_APPLICATION_DEVICES_READ_KEYS on ${options.applicationId}: export without --with-keys, or with a key that has it (${count} devices written before)`,
        );
      }
      throw err;
    }
    if (result.total !== undefined) sinks.progress.setTotal(result.total);
    for (const device of result.end_devices) await sinks.write(`${JSON.stringify(device)}\n`);
    count += result.end_devices.length;
    sinks.progress.add(result.end_devices.length);
    if (result.end_devices.length < options.pageSize) return count;
  }
}
