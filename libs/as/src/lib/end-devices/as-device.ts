import type { AS_END_DEVICE_FIELDS, EndDevice, Session, SessionKeys } from '@lorawan/api';
import type { StoredDevice } from '@lorawan/registry';

/**
 * A session as the AS registry stores it (TTS `ttnpb.Session`, the AS's part): the DevAddr, the
 * JS's session key ID and the AppSKey (sealed at rest; `DeviceRegistry.openKey` opens it), the
 * last application FCnt down and the application downlink queue (FRMPayloads encrypted).
 */
export type AsSession = Partial<Pick<Session, 'dev_addr' | 'last_a_f_cnt_down' | 'queued_application_downlinks'>> & {
  keys?: Partial<Pick<SessionKeys, 'session_key_id' | 'app_s_key'>>;
};

/**
 * The EndDevice fields of the AS (the seed's "Registries" table) besides its identifiers and
 * sessions; `queued_application_downlinks`, deprecated, is not stored: a Set's is the session's
 * queue, a Get's mirrors it.
 */
type AsField = Exclude<(typeof AS_END_DEVICE_FIELDS)[number], 'ids' | 'session' | 'pending_session'>;

/**
 * The Application Server's view of a device: its identifiers, formatters, crypto setting, version
 * and sessions, with the contract's types. (StoredDevice is taken through `Pick`, an object type
 * rather than the interface, so that an AsDevice is also a registry's plain `Device`.)
 */
export type AsDevice = Pick<StoredDevice, keyof StoredDevice> & Partial<Pick<EndDevice, AsField>> & { session?: AsSession; pending_session?: AsSession };
