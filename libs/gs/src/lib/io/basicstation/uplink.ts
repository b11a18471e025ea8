import { type BandId, dataRate } from '@lorawan/lorawan';
import type { GatewayIds, RxMetadata, UplinkMessageJson } from '../messages';
import { encodeUplinkToken } from '../../scheduling/uplink-token';
import { type Refused, withoutUndefined } from './json';
import type { JoinRequestMessage, ProprietaryFrameMessage, UplinkDataFrameMessage } from './messages';
import { timestampOfXtime, utcOfGpsTime, utcOfUnixSeconds } from './time';

/**
 * `jreq` / `updf` / `propdf` → the UplinkMessage every frontend hands the core (the same shape as
 * the Semtech UDP frontend's `io/udp/translation.ts`; TTS `lbslns/upstream.go` toUplinkMessage):
 * the PHYPayload rebuilt from station's fields, the data rate of the region's DR index, one
 * RxMetadata with the receiving radio (`rctx`) as antenna, the concentrator timestamp (xtime's low
 * 32 bits) and the uplink token the NS hands back with a class A downlink. Station forwards only
 * frames with a good CRC.
 */

export type ReceivedFrame = JoinRequestMessage | UplinkDataFrameMessage | ProprietaryFrameMessage;

/** The PHYPayload station split into fields: every multi-byte field little-endian, as on air. */
export function phyPayloadOf(msg: ReceivedFrame): Buffer {
  switch (msg.type) {
    case 'propdf':
      return msg.frame;
    case 'jreq': {
      const frame = Buffer.alloc(23);
      frame[0] = msg.mhdr;
      Buffer.from(msg.joinEui, 'hex').reverse().copy(frame, 1);
      Buffer.from(msg.devEui, 'hex').reverse().copy(frame, 9);
      frame.writeUInt16LE(msg.devNonce, 17);
      frame.writeInt32LE(msg.mic, 19);
      return frame;
    }
    case 'updf': {
      const header = Buffer.alloc(8);
      header[0] = msg.mhdr;
      header.writeUInt32LE(msg.devAddr, 1);
      header[5] = msg.fCtrl;
      header.writeUInt16LE(msg.fCnt, 6);
      const port = msg.fPort === -1 ? Buffer.alloc(0) : Buffer.from([msg.fPort]);
      const mic = Buffer.alloc(4);
      mic.writeInt32LE(msg.mic);
      return Buffer.concat([header, msg.fOpts, port, msg.frmPayload, mic]);
    }
  }
}

/** The UplinkMessage of one received frame, or why it cannot be one (a DR index the band does not have). */
export function toUplinkMessage(msg: ReceivedFrame, band: BandId, gateway: GatewayIds, receivedAt: string, correlationId: string): UplinkMessageJson | Refused {
  const rate = dataRate(band, msg.dataRate)?.rate;
  if (!rate) return { error: `DR${msg.dataRate} is not a data rate of ${band}` };
  const { upInfo } = msg;
  const timestamp = timestampOfXtime(upInfo.xtime);
  const gpsTime = upInfo.gpstime > 0n ? utcOfGpsTime(upInfo.gpstime) : undefined;
  // The time of reception: GPS time where the gateway has it, else its own clock (TTS TimePtrFromUpInfo).
  const time = gpsTime ?? (upInfo.rxtime !== undefined ? utcOfUnixSeconds(upInfo.rxtime) : undefined);
  const metadata: RxMetadata = withoutUndefined({
    gateway_ids: gateway,
    antenna_index: upInfo.rctx,
    time,
    timestamp,
    gps_time: gpsTime,
    fine_timestamp: upInfo.fts !== undefined && upInfo.gpstime > 0n ? String(upInfo.fts) : undefined,
    rssi: upInfo.rssi,
    channel_rssi: upInfo.rssi,
    snr: upInfo.snr,
    uplink_token: encodeUplinkToken({
      gateway_id: gateway.gateway_id,
      eui: gateway.eui,
      antenna_index: upInfo.rctx,
      timestamp,
      received_ms: Date.parse(receivedAt),
    }),
    received_at: receivedAt,
  });
  const data_rate: UplinkMessageJson['settings']['data_rate'] =
    'lora' in rate
      ? { lora: { spreading_factor: rate.lora.spreading_factor, bandwidth: rate.lora.bandwidth, coding_rate: '4/5' } }
      : { fsk: { bit_rate: rate.fsk.bit_rate } };
  return {
    raw_payload: phyPayloadOf(msg).toString('base64'),
    settings: withoutUndefined({ data_rate, frequency: String(msg.frequency), timestamp, time }),
    rx_metadata: [metadata],
    received_at: receivedAt,
    // Station forwards only frames whose CRC checked out (ral_lgw.c drops the others).
    crc_status: true,
    correlation_ids: [correlationId],
  };
}
