import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type ApplicationUpJson, applicationUpKind } from '@lorawan/api';
import type { ApplicationIntegration } from '../application-integration';
import { STORAGE_PACKAGE } from '../packages/application-packages';
import { PACKAGE_USAGE_CACHE, type PackageUsageCache } from '../packages/package-usage-cache';
import { StoredUpWriter } from './stored-up-writer';

export const STORED_UP_WRITER = Symbol('STORED_UP_WRITER');

/**
 * The Storage Integration (TTS `io/packages/storage`): every ApplicationUp of a device with a
 * `storage-integration` association, or of an application with such a default association (any
 * FPort: the association's FPort is not used), is stored. `publish` reads the application's
 * package usage (cached per replica) and hands the row to the batched writer; it never waits for
 * the database and never fails the message: a usage it cannot read is logged and the message not
 * stored.
 */
@Injectable()
export class StorageIntegration implements ApplicationIntegration, OnApplicationShutdown {
  readonly name = 'storage';
  private readonly logger = new Logger('StorageIntegration');

  constructor(
    @Inject(PACKAGE_USAGE_CACHE) private readonly usage: Pick<PackageUsageCache, 'get'>,
    @Inject(STORED_UP_WRITER) private readonly writer: StoredUpWriter,
  ) {}

  async publish(up: ApplicationUpJson): Promise<void> {
    const type = applicationUpKind(up);
    if (!type) return;
    const { device_id: deviceId, application_ids } = up.end_device_ids;
    const applicationId = application_ids.application_id;
    let enabled: boolean;
    try {
      const usage = (await this.usage.get(applicationId)).get(STORAGE_PACKAGE);
      enabled = usage !== undefined && (usage.application || usage.devices.has(deviceId));
    } catch (err) {
      this.logger.warn(
        { device_uid: `${applicationId}.${deviceId}`, error: (err as Error)?.message ?? String(err) },
        'message not stored: package associations unreadable',
      );
      return;
    }
    if (!enabled) return;
    const receivedAt = Date.parse(up.received_at ?? '');
    const fPort = up.uplink_message?.f_port;
    this.writer.add({
      applicationId,
      deviceId,
      type,
      receivedAt: Number.isNaN(receivedAt) ? Date.now() : receivedAt,
      fPort: typeof fPort === 'number' ? fPort : undefined,
      up: JSON.stringify(up),
    });
  }

  /** Writes what is still buffered before the database closes. */
  onApplicationShutdown(): Promise<void> {
    return this.writer.close();
  }
}
