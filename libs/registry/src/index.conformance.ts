// Test-only entry point (specs import `@lorawan/registry/conformance`): the store conformance suite.
export * from './lib/device-store.conformance';
export * from './lib/registry-store.conformance';
export * from './lib/registry-requests.conformance';
export * from './lib/registry-events.conformance';
export * from './lib/registry-batch.conformance';
