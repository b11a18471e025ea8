import type { Provider } from '@nestjs/common';

/** The webhook registry (and later delivery): Nest providers, filled by the webhook side. */
export const WEBHOOK_PROVIDERS: Provider[] = [];
