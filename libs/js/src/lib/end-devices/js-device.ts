import type { EndDevice, JS_END_DEVICE_FIELDS } from '@lorawan/api';
import type { StoredDevice } from '@lorawan/registry';

/** The EndDevice fields the Join Server stores (the seed's "Registries" table), identifiers aside. */
type JsField = Exclude<(typeof JS_END_DEVICE_FIELDS)[number], 'ids'>;

/** The Join Server's view of a device: its identifiers and the fields it stores, with the contract's types. */
export type JsDevice = StoredDevice & Partial<Pick<EndDevice, JsField>>;
