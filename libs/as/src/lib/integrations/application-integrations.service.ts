import { Inject, Injectable, Logger } from '@nestjs/common';
import { type ApplicationUpJson, applicationUpKind } from '@lorawan/api';
import { integrationPublishFailures } from '@lorawan/observability';
import { APPLICATION_INTEGRATIONS, type ApplicationIntegration, type ApplicationUpSink } from './application-integration';

/**
 * All the AS's integrations as one sink: `publish` hands the message to every integration at once,
 * each on its own, so one that throws, rejects or is slow neither stops nor delays the others from
 * getting it. An integration's failure is logged (its name, the device, the message's kind and
 * correlation IDs, never the message) and counted (`lorawan_as_integration_publish_failures_total`);
 * once every integration has answered, `publish` rejects with the first failure in list order (the
 * message is then not safely on its way everywhere, which the caller reports), else resolves.
 */
@Injectable()
export class ApplicationIntegrations implements ApplicationUpSink {
  private readonly logger = new Logger('ApplicationIntegrations');

  constructor(@Inject(APPLICATION_INTEGRATIONS) private readonly integrations: readonly ApplicationIntegration[]) {}

  async publish(up: ApplicationUpJson): Promise<void> {
    const results = await Promise.allSettled(this.integrations.map((integration) => this.publishTo(integration, up)));
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private async publishTo(integration: ApplicationIntegration, up: ApplicationUpJson): Promise<void> {
    try {
      await integration.publish(up);
    } catch (err) {
      integrationPublishFailures.inc({ integration: integration.name });
      const ids = up.end_device_ids;
      this.logger.warn(
        {
          integration: integration.name,
          device_uid: `${ids.application_ids.application_id}.${ids.device_id}`,
          kind: applicationUpKind(up),
          correlation_ids: up.correlation_ids,
          error: (err as Error)?.message ?? String(err),
        },
        'integration did not take the application message',
      );
      throw err;
    }
  }
}
