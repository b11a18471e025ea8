/** `ttn.lorawan.v3.ErrorDetails` as it travels on the wire (and between components). */
export interface ErrorDetails {
  namespace: string;
  name: string;
  message_format: string;
  attributes?: Record<string, unknown>;
  correlation_id: string;
  cause?: ErrorDetails;
  code: number;
  /** Further typed messages about the error (TTS `details`, `google.protobuf.Any` JSON: `@type` and the fields). */
  details?: TypedDetail[];
}

/** A message in an error's `details`: its `@type` URL and its fields (`google.protobuf.Any` JSON). */
export type TypedDetail = { '@type': string } & Record<string, unknown>;

/** Error details as they cross the transport (a component's error reply), as opposed to anything else a call may reject with. */
export function isErrorDetails(err: unknown): err is ErrorDetails {
  const e = err as Partial<ErrorDetails> | undefined;
  return typeof e === 'object' && e !== null && typeof e.namespace === 'string' && typeof e.name === 'string' && typeof e.code === 'number';
}

export const ERROR_DETAILS_TYPE = 'type.googleapis.com/ttn.lorawan.v3.ErrorDetails';

/** `google.rpc.Status` body written by the HTTP gateway. */
export interface StatusBody {
  code: number;
  message: string;
  details?: Array<ErrorDetails & { '@type': string }>;
}
