import type { Provider } from '@nestjs/common';
import { DownlinkPayloads } from './downlink-payloads.service';
import { DownlinkQueue } from './downlink-queue.service';
import { DownlinkReports } from './downlink-reports.service';
import { DownlinkResults } from './downlink-results.service';
import { AppAsController, WebhookDownlinkController } from './downlinks.controller';
import { NetworkServerQueue } from './network-server-queue';
import { DownlinkQueueOperation } from './queue-operation.service';
import { WebhookDownlinkQueue } from '../integrations/webhooks/downlink/webhook-downlink-queue.service';

/**
 * The downlink queue (at the Network Server) and its webhook-scoped
 * push/replace, and the Network Server's reports on downlinks: Nest providers.
 */
export const DOWNLINK_PROVIDERS: Provider[] = [
  NetworkServerQueue,
  DownlinkPayloads,
  DownlinkReports,
  DownlinkQueueOperation,
  DownlinkQueue,
  WebhookDownlinkQueue,
  DownlinkResults,
];
export const DOWNLINK_CONTROLLERS = [AppAsController, WebhookDownlinkController];
