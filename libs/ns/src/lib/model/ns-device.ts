import type { ApplicationDownlink, EndDevice, MACParameters, MACSettings, MACState, NS_END_DEVICE_FIELDS, Session, UplinkMessage } from '@lorawan/api';
import type { MacCommandJson } from '@lorawan/lorawan';
import type { StoredDevice } from '@lorawan/registry';

/** The EndDevice fields the Network Server stores (the seed's "Registries" table), identifiers and MAC states aside. */
type NsField = Exclude<
  (typeof NS_END_DEVICE_FIELDS)[number],
  'ids' | 'created_at' | 'updated_at' | 'mac_state' | 'pending_mac_state' | 'session' | 'pending_session'
>;

/** `ttn.lorawan.v3.MACParameters` as the NS keeps them (canonical JSON: frequencies as decimal strings). */
export type NsMacParameters = MACParameters;

/**
 * `ttn.lorawan.v3.MACState` as the NS keeps it: the contract's, with its MAC commands in TTS's
 * JSON (`{ cid, link_adr_req: { … } }`, as the codec reads and writes them) where the contract's
 * MACCommand keeps only the CID and raw bytes.
 */
export type NsMacState = Omit<MACState, 'queued_responses' | 'pending_requests'> & {
  queued_responses?: MacCommandJson[];
  pending_requests?: MacCommandJson[];
};

/**
 * A (pending) session as the NS keeps it: its network part (the AppSKey stays with the AS). Its
 * keys may be absent: a client may set an OTAA device's session with its DevAddr only.
 */
export type NsSession = Omit<Session, 'keys'> & Partial<Pick<Session, 'keys'>>;

/** A queued application downlink as the NS keeps it (TTS `ApplicationDownlink`, FRMPayload encrypted by the AS). */
export type QueuedDownlink = ApplicationDownlink;

/** The MAC settings that apply to a device: its own, over the NS's defaults (`effectiveMacSettings`). */
export type NsMacSettings = MACSettings;

/** The Network Server's view of a device: its identifiers and the fields it stores, with the contract's types. */
export type NsDevice = StoredDevice &
  Partial<Pick<EndDevice, NsField>> & {
    session?: NsSession;
    pending_session?: NsSession;
    mac_state?: NsMacState;
    pending_mac_state?: NsMacState;
  };

/** An uplink as the NS received it: the GS's message, stamped with the time the NS got it. */
export type ReceivedUplink = UplinkMessage & { received_at: string };
