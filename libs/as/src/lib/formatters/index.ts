import type { Provider } from '@nestjs/common';
import { FormatterWorkerPool } from './formatter-worker-pool.service';
import { PayloadFormatter } from './payload-formatter.service';

export * from './cayenne-lpp';
export * from './formatter.errors';
export * from './formatter-worker-pool.service';
export * from './payload-formatter.service';

/** Payload formatters and the worker threads that run their scripts: Nest providers. */
export const FORMATTER_PROVIDERS: Provider[] = [FormatterWorkerPool, PayloadFormatter];
