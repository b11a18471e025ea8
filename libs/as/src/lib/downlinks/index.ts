import type { Provider } from '@nestjs/common';
import { JavaScriptSandbox } from '../formatters/javascript-sandbox';
import { PayloadFormatter } from '../formatters/payload-formatter.service';
import { DownlinkQueue } from './downlink-queue.service';
import { AppAsController, WebhookDownlinkController } from './downlinks.controller';
import { WebhookDownlinkQueue } from './webhook-downlink-queue.service';

/** Payload formatters, the downlink queue and its webhook-scoped push/replace: Nest providers. */
export const DOWNLINK_PROVIDERS: Provider[] = [
  { provide: JavaScriptSandbox, useFactory: () => new JavaScriptSandbox() },
  PayloadFormatter,
  DownlinkQueue,
  WebhookDownlinkQueue,
];
export const DOWNLINK_CONTROLLERS = [AppAsController, WebhookDownlinkController];
