import { Code, defineError } from '@lorawan/errors';

/** Gateway Server errors (TTS `pkg/gatewayserver` names, so clients match them). */
export const ErrMessageCRC = defineError('pkg/gatewayserver/io', 'message_crc', 'message CRC failed', Code.InvalidArgument);
export const ErrConnectionExpired = defineError('pkg/gatewayserver/io/udp', 'connection_expired', 'connection expired', Code.Unavailable);
export const ErrServerStopped = defineError('pkg/gatewayserver', 'server_stopped', 'the Gateway Server stopped', Code.Unavailable);
export const ErrNoNetworkServer = defineError('pkg/gatewayserver', 'network_server_unavailable', 'no Network Server took the uplink', Code.Unavailable);
