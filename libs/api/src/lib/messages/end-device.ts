import { Bool, EnumName, Float, Int32, IntegerList, NetId, Str, StringMap, Struct, Timestamp, Uint32, Uint64 } from '../json/fields';
import { Message, MessageMap, Messages, Required } from '../json/nested';
import { MACVersion, PHYVersion, PowerState } from '../enums/lorawan';
import { EndDeviceIdentifiers, EndDeviceVersionIdentifiers, ID_MAX_LENGTH, ID_PATTERN } from './identifiers';
import { Location, Picture } from './location';
import { MessagePayloadFormatters } from './formatters';
import { RootKeys } from './keys';
import { MACSettings, MACState } from './mac';
import { Session } from './session';
import { ApplicationDownlink, DownlinkMessage, UplinkMessage } from './traffic';

/** Address pattern A of the seed: host[:port], or empty. */
export const ADDRESS_PATTERN =
  /^(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])\.)*(?:[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9])(?::[0-9]{1,5})?$|^$/;
export const Address = () => Str({ pattern: ADDRESS_PATTERN });

/**
 * The most `provisioning_data` may hold, as compact JSON (UTF-8). TTS sets no bound of its own (a
 * `google.protobuf.Struct` without validate rules in `end_device.proto`; only its 16 MiB gRPC and
 * HTTP message limits apply). The provisioning data TTS itself produces, a Microchip manifest entry
 * (`pkg/devicetemplates/microchip.go`: a unique ID and an X.509 certificate chain), is a few KiB;
 * 64 KiB leaves an order of magnitude for other vendors' data and keeps a Join Server device small.
 */
export const MAX_PROVISIONING_DATA_BYTES = 64 * 1024;

/** `^[a-z0-9](?:[-]?[a-z0-9]){2,}$|^$`, max 36. */
export const PROVISIONER_ID_PATTERN = /^[a-z0-9](?:[-]?[a-z0-9]){2,}$|^$/;

export class EndDeviceAuthenticationCode {
  @Str({ pattern: /^[A-Z0-9]{1,32}$/ }) value?: string;
  @Timestamp() valid_from?: string;
  @Timestamp() valid_to?: string;
}

/**
 * `ttn.lorawan.v3.EndDevice`: every field of the seed's EndDevice table. Each registry stores its
 * own subset (see `registry-fields.ts`); the class validates them all, so any registry can decode
 * any request and reject what it does not own through its allowed field-mask paths.
 */
export class EndDevice {
  @Required() @Message(() => EndDeviceIdentifiers) ids!: EndDeviceIdentifiers;
  @Timestamp() created_at?: string;
  @Timestamp() updated_at?: string;

  // Identity Server.
  @Str({ maxLength: 50 }) name?: string;
  @Str({ maxLength: 2000 }) description?: string;
  @StringMap({ maxEntries: 10, keyPattern: ID_PATTERN, maxKeyLength: ID_MAX_LENGTH, maxValueLength: 200 }) attributes?: Record<string, string>;
  @Message(() => EndDeviceVersionIdentifiers) version_ids?: EndDeviceVersionIdentifiers;
  @Str({ maxLength: 64 }) service_profile_id?: string;
  @Address() network_server_address?: string;
  @Address() application_server_address?: string;
  @Address() join_server_address?: string;
  @MessageMap(() => Location, { keyPattern: ID_PATTERN, maxKeyLength: ID_MAX_LENGTH }) locations?: Record<string, Location>;
  @Message(() => Picture) picture?: Picture;

  // Join Server.
  @Str({ maxLength: 2048 }) network_server_kek_label?: string;
  @Str({ maxLength: 2048 }) application_server_kek_label?: string;
  @Str({ maxLength: 100 }) application_server_id?: string;
  @Bool() resets_join_nonces?: boolean;
  @NetId() net_id?: string;
  @Uint32() last_dev_nonce?: number;
  @IntegerList({ max: 0xffffffff }) used_dev_nonces?: number[];
  @Uint32() last_join_nonce?: number;
  @Uint32() last_rj_count_0?: number;
  @Uint32() last_rj_count_1?: number;
  @Str({ maxLength: 36, pattern: PROVISIONER_ID_PATTERN }) provisioner_id?: string;
  @Struct({ maxBytes: MAX_PROVISIONING_DATA_BYTES }) provisioning_data?: Record<string, unknown>;
  @Message(() => EndDeviceAuthenticationCode) claim_authentication_code?: EndDeviceAuthenticationCode;
  @Message(() => RootKeys) root_keys?: RootKeys;

  // Network Server.
  @Bool() supports_class_b?: boolean;
  @Bool() supports_class_c?: boolean;
  @EnumName(MACVersion) lorawan_version?: string;
  @EnumName(PHYVersion) lorawan_phy_version?: string;
  @Str({ maxLength: 64 }) frequency_plan_id?: string;
  @Uint64() min_frequency?: string;
  @Uint64() max_frequency?: string;
  @Bool() supports_join?: boolean;
  @Timestamp() last_dev_status_received_at?: string;
  @EnumName(PowerState) power_state?: string;
  @Float({ min: 0, max: 1, wrapper: true }) battery_percentage?: number;
  @Int32() downlink_margin?: number;
  @Bool() multicast?: boolean;
  @Bool() skip_payload_crypto?: boolean;
  @Message(() => MACSettings) mac_settings?: MACSettings;
  @Message(() => MACState) mac_state?: MACState;
  @Message(() => MACState) pending_mac_state?: MACState;
  /** Sorted by time; reset on each uplink with the ADR bit unset. */
  @Messages(() => UplinkMessage, { maxItems: 20 }) recent_adr_uplinks?: UplinkMessage[];
  @Messages(() => UplinkMessage) recent_uplinks?: UplinkMessage[];
  @Messages(() => DownlinkMessage) recent_downlinks?: DownlinkMessage[];

  // Network Server and Application Server.
  @Message(() => Session) session?: Session;
  /** Kept until RekeyInd is received. */
  @Message(() => Session) pending_session?: Session;

  // Application Server.
  /** Deprecated: always equal to session.queued_application_downlinks. */
  @Messages(() => ApplicationDownlink) queued_application_downlinks?: ApplicationDownlink[];
  @Message(() => MessagePayloadFormatters) formatters?: MessagePayloadFormatters;
}

/** `ttn.lorawan.v3.EndDevices` (List; the batch Get, Create and Set). */
export class EndDevices {
  @Messages(() => EndDevice) end_devices?: EndDevice[];
}
