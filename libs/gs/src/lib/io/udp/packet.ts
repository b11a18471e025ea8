/**
 * Semtech UDP packet forwarder protocol (GWMP) v1 and v2 datagrams (PROTOCOL.TXT; TTS
 * `pkg/ttnpb/udp/packet.go`): `version | token(2) | identifier | [gateway EUI(8) | JSON]`.
 * Parsing never throws: a datagram that is not one is a `DropReason` for a metric.
 */

export const enum PacketType {
  PushData = 0x00,
  PushAck = 0x01,
  PullData = 0x02,
  PullResp = 0x03,
  PullAck = 0x04,
  TxAck = 0x05,
}

export type ProtocolVersion = 1 | 2;

/** What a gateway sends: PUSH_DATA (uplinks, status), PULL_DATA (keep-alive, downlink route), TX_ACK (v2). */
export interface UpstreamPacket {
  version: ProtocolVersion;
  token: number;
  type: PacketType.PushData | PacketType.PullData | PacketType.TxAck;
  /** Upper-case hex, as the EUI was sent. */
  gatewayEui: string;
  /** The JSON after the header (PUSH_DATA, TX_ACK), unparsed. */
  body: Buffer;
}

/** Why a datagram was dropped (label of the drop metric). */
export type DropReason = 'too_short' | 'unsupported_version' | 'unexpected_identifier' | 'no_gateway_eui';

const HEADER = 4;
const WITH_EUI = HEADER + 8;

export function parseUpstream(datagram: Buffer): UpstreamPacket | DropReason {
  if (datagram.length < HEADER) return 'too_short';
  const version = datagram[0];
  if (version !== 1 && version !== 2) return 'unsupported_version';
  const type = datagram[3];
  if (type !== PacketType.PushData && type !== PacketType.PullData && type !== PacketType.TxAck) return 'unexpected_identifier';
  if (datagram.length < WITH_EUI) return 'no_gateway_eui';
  return {
    version,
    token: datagram.readUInt16BE(1),
    type,
    gatewayEui: datagram.toString('hex', HEADER, WITH_EUI).toUpperCase(),
    body: datagram.subarray(WITH_EUI),
  };
}

/** PUSH_ACK for PUSH_DATA, PULL_ACK for PULL_DATA (same version and token); nothing for TX_ACK. */
export function ackFor(packet: UpstreamPacket): Buffer | undefined {
  if (packet.type === PacketType.TxAck) return undefined;
  return header(packet.version, packet.token, packet.type === PacketType.PushData ? PacketType.PushAck : PacketType.PullAck);
}

/** PULL_RESP carrying one `txpk`; v2 gateways echo `token` in their TX_ACK (v1 has none: 0). */
export function pullResp(version: ProtocolVersion, token: number, txpk: object): Buffer {
  return Buffer.concat([header(version, version === 1 ? 0 : token, PacketType.PullResp), Buffer.from(JSON.stringify({ txpk }))]);
}

function header(version: ProtocolVersion, token: number, type: PacketType): Buffer {
  // Every byte is written below.
  const b = Buffer.allocUnsafe(HEADER);
  b[0] = version;
  b.writeUInt16BE(token & 0xffff, 1);
  b[3] = type;
  return b;
}
