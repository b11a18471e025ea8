import type { Device, KeyEnvelopeJson } from '@lorawan/registry';
import type { LinkedDevice } from '../links/link-settings';

type Json = Record<string, unknown>;

/**
 * A session as the AS registry stores it (TTS `ttnpb.Session`, the AS's part): the DevAddr, the
 * JS's session key ID and the AppSKey (sealed at rest; `DeviceRegistry.openKey` opens it), the
 * last application FCnt down and the application downlink queue (FRMPayloads encrypted).
 */
export interface AsSession {
  dev_addr?: string;
  keys?: { session_key_id?: string; app_s_key?: KeyEnvelopeJson };
  last_a_f_cnt_down?: number;
  queued_application_downlinks?: Json[];
}

/** A device as the AS registry stores it: its sessions, formatters and crypto settings, version. */
export type AsDevice = Device & LinkedDevice & { session?: AsSession; pending_session?: AsSession; version_ids?: Json };
