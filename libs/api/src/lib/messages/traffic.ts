import { ValidateBy } from 'class-validator';
import { Base64Bytes, Bool, DevAddr, Duration, EnumName, IntegerList, List, NetId, StringList, Struct, Timestamp, Uint32, Uint64 } from '../json/fields';
import { Message, Messages, Required } from '../json/nested';
import { MACVersion } from '../enums/lorawan';
import { CFListType, DataRateIndex, DataRateOffset, MACCommandIdentifier, RxDelay, TxSchedulePriority } from '../enums/mac';
import { EndDeviceIdentifiers, GatewayIdentifiers } from './identifiers';
import { SessionKeys } from './keys';
import { isJsonObject } from '../json/json-object';

/**
 * Traffic messages the registries store (TTS `messages.proto`, `lorawan.proto`, `mac.proto`): a
 * reasonable subset of their fields. Keys not declared here are dropped on decoding, as unknown
 * keys are; nested radio metadata and data rates are kept as unvalidated objects.
 */

/** Correlation IDs: each at most 100 characters (TTS `repeated.items.string.max_len = 100`). */
const CorrelationIds = (maxItems?: number) => StringList({ maxLength: 100, maxItems });

/** `ttn.lorawan.v3.TxSettings` (subset). */
export class TxSettings {
  /** `DataRate` oneof (`lora`, `fsk`, `lrfhss`), kept as an object. */
  @Struct() data_rate?: Record<string, unknown>;
  @Uint64({ min: 100000 }) frequency?: string;
  @Bool() enable_crc?: boolean;
  @Uint32() timestamp?: number;
  @Timestamp() time?: string;
  /** `TxSettings.Downlink` (antenna_index, tx_power, invert_polarization), kept as an object. */
  @Struct() downlink?: Record<string, unknown>;
}

/** `ttn.lorawan.v3.UplinkMessage` (subset). */
export class UplinkMessage {
  @Base64Bytes() raw_payload?: string;
  /** The decoded LoRaWAN `Message`, kept as an object. */
  @Struct() payload?: Record<string, unknown>;
  @Message(() => TxSettings) settings?: TxSettings;
  @List({ item: isJsonObject, itemReason: 'each item must be an object' }) rx_metadata?: Record<string, unknown>[];
  @Timestamp() received_at?: string;
  @CorrelationIds() correlation_ids?: string[];
  @Uint32({ max: 255 }) device_channel_index?: number;
  @Duration() consumed_airtime?: string;
}

/** `ttn.lorawan.v3.DownlinkMessage` (subset); `request` / `scheduled` form TTS's `settings` oneof. */
export class DownlinkMessage {
  @Base64Bytes() raw_payload?: string;
  @Struct() payload?: Record<string, unknown>;
  @Message(() => EndDeviceIdentifiers) end_device_ids?: EndDeviceIdentifiers;
  /** `TxRequest`, kept as an object. */
  @Struct() request?: Record<string, unknown>;
  @Message(() => TxSettings) scheduled?: TxSettings;
  @CorrelationIds() correlation_ids?: string[];
  @Base64Bytes(2048) session_key_id?: string;
}

/** `ttn.lorawan.v3.ClassBCGatewayIdentifiers`. */
export class ClassBCGatewayIdentifiers {
  @Required() @Message(() => GatewayIdentifiers) gateway_ids!: GatewayIdentifiers;
  @Uint32() antenna_index?: number;
  @Uint32() group_index?: number;
}

/** `ttn.lorawan.v3.ApplicationDownlink.ClassBC`. */
export class ApplicationDownlinkClassBC {
  @Messages(() => ClassBCGatewayIdentifiers) gateways?: ClassBCGatewayIdentifiers[];
  @Timestamp() absolute_time?: string;
}

/** `ttn.lorawan.v3.ApplicationDownlink.ConfirmedRetry`: the attempts of a confirmed downlink (`max_attempts` null: the AS's default). */
export class ApplicationDownlinkConfirmedRetry {
  @Uint32() attempt?: number;
  @Uint32({ min: 1, max: 100 }) max_attempts?: number;
}

/** `ttn.lorawan.v3.ApplicationDownlink` (subset). */
export class ApplicationDownlink {
  @Base64Bytes(2048) session_key_id?: string;
  @Uint32({ max: 255 }) f_port?: number;
  @Uint32() f_cnt?: number;
  @Base64Bytes() frm_payload?: string;
  @Struct() decoded_payload?: Record<string, unknown>;
  @List({ item: (v) => typeof v === 'string', itemReason: 'each item must be a string' }) decoded_payload_warnings?: string[];
  @Bool() confirmed?: boolean;
  @Message(() => ApplicationDownlinkClassBC) class_b_c?: ApplicationDownlinkClassBC;
  @EnumName(TxSchedulePriority) priority?: string;
  /** At most 100 IDs of at most 100 characters each. */
  @CorrelationIds(100) correlation_ids?: string[];
  @Message(() => ApplicationDownlinkConfirmedRetry) confirmed_retry?: ApplicationDownlinkConfirmedRetry;
}

/** `ttn.lorawan.v3.MACCommand`: the CID and its raw payload (typed payloads are not kept). */
export class MACCommand {
  @Required()
  @EnumName(MACCommandIdentifier)
  @ValidateBy({ name: 'cid_not_rfu', validator: { validate: (v) => v !== 'CID_RFU_0', defaultMessage: () => 'value must not be CID_RFU_0' } })
  cid!: string;
  @Base64Bytes() raw_payload?: string;
}

/** `ttn.lorawan.v3.DLSettings`. */
export class DLSettings {
  @EnumName(DataRateOffset) rx1_dr_offset?: number;
  @EnumName(DataRateIndex) rx2_dr?: number;
  @Bool() opt_neg?: boolean;
}

/** `ttn.lorawan.v3.CFList`. */
export class CFList {
  @EnumName(CFListType) type?: string;
  @IntegerList({ max: 0xffffffff }) freq?: number[];
  @List({ item: (v) => typeof v === 'boolean', itemReason: 'each item must be a boolean' }) ch_masks?: boolean[];
}

/** `ttn.lorawan.v3.JoinRequest` (subset). */
export class JoinRequest {
  @Base64Bytes() raw_payload?: string;
  @Struct() payload?: Record<string, unknown>;
  @DevAddr() dev_addr?: string;
  @EnumName(MACVersion) selected_mac_version?: string;
  @NetId() net_id?: string;
  @Required() @Message(() => DLSettings) downlink_settings!: DLSettings;
  @EnumName(RxDelay) rx_delay?: number;
  @Message(() => CFList) cf_list?: CFList;
  @CorrelationIds() correlation_ids?: string[];
  @Duration() consumed_airtime?: string;
}

/** `ttn.lorawan.v3.MACState.JoinAccept`. */
export class MACStateJoinAccept {
  /** The encrypted Join-Accept PHYPayload: 17 or 33 bytes. */
  @Base64Bytes(33, 17) payload?: string;
  @Required() @Message(() => JoinRequest) request!: JoinRequest;
  @Required() @Message(() => SessionKeys) keys!: SessionKeys;
  @CorrelationIds() correlation_ids?: string[];
  @DevAddr() dev_addr?: string;
  @NetId() net_id?: string;
}
