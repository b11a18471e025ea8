import { Str } from '../json/fields';

/** TTS's rule for a public `host[:port]` address (an IPv6 host in brackets), or empty. */
export const PUBLIC_ADDRESS_PATTERN =
  /^(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])\.)*(?:[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$|^$/;

/** `ttn.lorawan.v3.MQTTConnectionInfo` (TTS `mqtt.proto`): where and as whom an MQTT client connects. */
export class MQTTConnectionInfo {
  @Str({ pattern: PUBLIC_ADDRESS_PATTERN }) public_address?: string;
  @Str({ pattern: PUBLIC_ADDRESS_PATTERN }) public_tls_address?: string;
  @Str() username?: string;
}
