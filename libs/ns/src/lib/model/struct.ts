/**
 * A message the contract carries as a `google.protobuf.Struct` (ApplicationUplink's `settings`,
 * ApplicationDownlinkFailed's `error`): a shallow copy, the same JSON, typed as the Struct.
 */
export function asStruct(message: object): Record<string, unknown>;
export function asStruct(message: object | undefined): Record<string, unknown> | undefined;
export function asStruct(message: object | undefined): Record<string, unknown> | undefined {
  return message === undefined ? undefined : { ...message };
}
