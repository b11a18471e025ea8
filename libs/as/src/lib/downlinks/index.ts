import type { Provider } from '@nestjs/common';
import { JavaScriptSandbox } from '../formatters/javascript-sandbox';
import { PayloadFormatter } from '../formatters/payload-formatter.service';
import { DownlinkQueue } from './downlink-queue.service';
import { AppAsRpc } from './downlinks.rpc';

/** Payload formatters and the downlink queue: Nest providers. */
export const DOWNLINK_PROVIDERS: Provider[] = [{ provide: JavaScriptSandbox, useFactory: () => new JavaScriptSandbox() }, PayloadFormatter, DownlinkQueue, AppAsRpc];
