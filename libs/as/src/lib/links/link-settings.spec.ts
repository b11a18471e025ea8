import { formatterFor, skipsPayloadCrypto } from './link-settings';

const JS = { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: 'function decodeUplink() {}' };
const LINK = { default_formatters: { up_formatter: 'FORMATTER_CAYENNELPP', down_formatter: 'FORMATTER_CAYENNELPP' }, skip_payload_crypto: true };

describe('formatterFor (TTS payload.go: the device formatters if set at all, else the link defaults)', () => {
  it('takes the link default when the device has no formatters', () => {
    expect(formatterFor('up', {}, LINK)).toEqual({ formatter: 'FORMATTER_CAYENNELPP', parameter: undefined });
    expect(formatterFor('down', {}, LINK)).toEqual({ formatter: 'FORMATTER_CAYENNELPP', parameter: undefined });
    expect(formatterFor('up', {}, undefined)).toEqual({});
    expect(formatterFor('up', {}, {})).toEqual({});
  });

  it('takes the device formatters, per direction, even when they leave that direction unset', () => {
    expect(formatterFor('up', { formatters: JS }, LINK)).toEqual({ formatter: 'FORMATTER_JAVASCRIPT', parameter: JS.up_formatter_parameter });
    expect(formatterFor('down', { formatters: JS }, LINK)).toEqual({ formatter: undefined, parameter: undefined });
    expect(formatterFor('up', { formatters: {} }, LINK)).toEqual({ formatter: undefined, parameter: undefined });
  });
});

describe('skipsPayloadCrypto', () => {
  it('the device override wins, else the link', () => {
    expect(skipsPayloadCrypto({}, undefined)).toBe(false);
    expect(skipsPayloadCrypto({}, LINK)).toBe(true);
    expect(skipsPayloadCrypto({}, { skip_payload_crypto: false })).toBe(false);
    expect(skipsPayloadCrypto({ skip_payload_crypto_override: false }, LINK)).toBe(false);
    expect(skipsPayloadCrypto({ skip_payload_crypto_override: true }, undefined)).toBe(true);
    expect(skipsPayloadCrypto({ skip_payload_crypto: true }, undefined)).toBe(true);
    expect(skipsPayloadCrypto({ skip_payload_crypto: false }, LINK)).toBe(true);
  });
});
