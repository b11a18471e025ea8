/** `ttn.lorawan.v3.ErrorDetails` as it travels on the wire (and between components). */
export interface ErrorDetails {
  namespace: string;
  name: string;
  message_format: string;
  attributes?: Record<string, unknown>;
  correlation_id: string;
  cause?: ErrorDetails;
  code: number;
}

export const ERROR_DETAILS_TYPE = 'type.googleapis.com/ttn.lorawan.v3.ErrorDetails';

/** `google.rpc.Status` body written by the HTTP gateway. */
export interface StatusBody {
  code: number;
  message: string;
  details?: Array<ErrorDetails & { '@type': string }>;
}
