import type { ApplicationLink, EndDevice } from '@lorawan/api';

/** A payload formatter of one direction and its parameter (the script). */
export interface DirectionFormatter {
  formatter?: string;
  parameter?: string;
}

/**
 * The device fields these rules read: the contract's, and TTS's `skip_payload_crypto_override`
 * (a BoolValue the contract's EndDevice subset does not carry; never stored by this AS).
 */
export type LinkedDevice = Partial<Pick<EndDevice, 'formatters' | 'skip_payload_crypto'>> & { skip_payload_crypto_override?: boolean };

/**
 * The formatter of `direction` for a device (TTS `payload.go` decodeUplink/encodeDownlink/
 * decodeDownlink): the device's own when it has `formatters` at all (even without a formatter for
 * that direction, which then means none), else the application link's `default_formatters`.
 */
export function formatterFor(direction: 'up' | 'down', device: LinkedDevice, link: ApplicationLink | undefined): DirectionFormatter {
  const source = device.formatters ?? link?.default_formatters;
  if (!source) return {};
  return direction === 'up'
    ? { formatter: source.up_formatter, parameter: source.up_formatter_parameter }
    : { formatter: source.down_formatter, parameter: source.down_formatter_parameter };
}

/**
 * Whether the AS skips payload crypto for a device without a usable session (TTS
 * `skipPayloadCrypto` as SimulateUplink calls it): the device's override when it has one (this
 * stack also takes the device's deprecated `skip_payload_crypto: true` as one), else the link's.
 */
export function skipsPayloadCrypto(device: LinkedDevice, link: ApplicationLink | undefined): boolean {
  if (typeof device.skip_payload_crypto_override === 'boolean') return device.skip_payload_crypto_override;
  if (device.skip_payload_crypto === true) return true;
  return link?.skip_payload_crypto === true;
}
