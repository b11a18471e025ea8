import type { Provider } from '@nestjs/common';

/** Payload formatters and the downlink queue: Nest providers, filled by the downlink side. */
export const DOWNLINK_PROVIDERS: Provider[] = [];
