import { IS_DEFINED, ValidateBy, type ValidationArguments } from 'class-validator';
import { EnumName } from '../json/fields';
import { PayloadFormatter } from '../enums/mac';

/** Formatters whose behaviour is defined by their parameter (the script, the gRPC service address). */
export const PARAMETERISED_FORMATTERS: readonly string[] = ['FORMATTER_JAVASCRIPT', 'FORMATTER_GRPC_SERVICE'];

/** Formatter parameters are limited to 40960 bytes (TTS AS `formatter_script_too_large`). */
export const MAX_FORMATTER_PARAMETER_BYTES = 40960;

const isSetParameter = (v: unknown) => typeof v === 'string' && v !== '';

/**
 * The seed's "must be set together" rule for `<dir>_formatter` and `<dir>_formatter_parameter`,
 * as decided for this contract (following TTS's JSON convention that `""` means unset):
 * - a non-empty parameter without its formatter fails on the formatter field;
 * - a formatter that needs a parameter (FORMATTER_JAVASCRIPT, FORMATTER_GRPC_SERVICE) without a
 *   non-empty parameter fails on the parameter field;
 * - FORMATTER_NONE, FORMATTER_CAYENNELPP and FORMATTER_REPOSITORY (which looks the codec up by the
 *   device's version_ids) take no parameter: alone, or with any parameter (even `""`), they count
 *   as set together.
 *
 * Both rules are about an absent field (the formatter, or the parameter a formatter needs), so
 * they are registered as presence checks (`isDefined`, the class-validator type that runs even for
 * an undefined property; `decodeMessage` skips the other checks of undefined properties, which all
 * accept undefined). The parameter's rule for a present value stays an ordinary check, after the
 * parameter's own, so that the first reason of a bad parameter is unchanged.
 */
function FormatterSetTogether(parameterKey: 'up_formatter_parameter' | 'down_formatter_parameter'): PropertyDecorator {
  return ValidateBy({
    name: IS_DEFINED,
    validator: {
      validate: (formatter: unknown, args?: ValidationArguments) =>
        formatter !== undefined || !isSetParameter((args?.object as Record<string, unknown>)[parameterKey]),
      defaultMessage: () => `value must be set together with \`${parameterKey}\``,
    },
  });
}

function FormatterParameter(formatterKey: 'up_formatter' | 'down_formatter'): PropertyDecorator {
  return (target, key) => {
    ValidateBy({
      name: 'formatter_parameter',
      validator: {
        validate: (v: unknown) => v === undefined || (typeof v === 'string' && Buffer.byteLength(v, 'utf8') <= MAX_FORMATTER_PARAMETER_BYTES),
        defaultMessage: (args) =>
          typeof args?.value !== 'string' ? 'value must be a string' : `value length must be at most ${MAX_FORMATTER_PARAMETER_BYTES} bytes`,
      },
    })(target, key);
    const setTogether = (v: unknown, args?: ValidationArguments) => {
      const formatter = (args?.object as Record<string, unknown>)[formatterKey];
      return !(typeof formatter === 'string' && PARAMETERISED_FORMATTERS.includes(formatter)) || isSetParameter(v);
    };
    const defaultMessage = (args?: ValidationArguments) =>
      `value is required when \`${formatterKey}\` is ${String((args?.object as Record<string, unknown>)[formatterKey])}: must be set together with \`${formatterKey}\``;
    ValidateBy({
      name: IS_DEFINED,
      validator: { validate: (v: unknown, args?: ValidationArguments) => v !== undefined || setTogether(v, args), defaultMessage },
    })(target, key);
    ValidateBy({
      name: 'formatter_parameter_set_together',
      validator: { validate: (v: unknown, args?: ValidationArguments) => v === undefined || setTogether(v, args), defaultMessage },
    })(target, key);
  };
}

/** `ttn.lorawan.v3.MessagePayloadFormatters` (Application Server). */
export class MessagePayloadFormatters {
  @EnumName(PayloadFormatter) @FormatterSetTogether('up_formatter_parameter') up_formatter?: string;
  @FormatterParameter('up_formatter') up_formatter_parameter?: string;
  @EnumName(PayloadFormatter) @FormatterSetTogether('down_formatter_parameter') down_formatter?: string;
  @FormatterParameter('down_formatter') down_formatter_parameter?: string;
}
