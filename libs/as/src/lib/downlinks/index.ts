import type { Provider } from '@nestjs/common';
import { JavaScriptSandbox } from '../formatters/javascript-sandbox';
import { PayloadFormatter } from '../formatters/payload-formatter.service';
import { DownlinkQueue } from './downlink-queue.service';
import { AppAsRpc, WebhookDownlinkRpc } from './downlinks.rpc';
import { WebhookDownlinkQueue } from './webhook-downlink-queue.service';

/** Payload formatters, the downlink queue and its webhook-scoped push/replace: Nest providers. */
export const DOWNLINK_PROVIDERS: Provider[] = [{ provide: JavaScriptSandbox, useFactory: () => new JavaScriptSandbox() }, PayloadFormatter, DownlinkQueue, AppAsRpc, WebhookDownlinkQueue, WebhookDownlinkRpc];
