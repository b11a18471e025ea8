import { InMemoryApiKeyStore } from './access-fixtures.conformance';
import { describeApiKeyStoreConformance } from './api-key.store.conformance';

// The service specs' test double behaves as the real stores do (they run the same suite in
// `typeorm-api-key.store.int-spec.ts`).
describeApiKeyStoreConformance('in-memory test double', async () => ({ store: new InMemoryApiKeyStore(), close: async () => undefined }));
