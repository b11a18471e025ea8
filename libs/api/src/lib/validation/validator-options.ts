import type { ValidatorOptions } from 'class-validator';

/**
 * How every contract message is validated (`decodeMessage`, and the values of message maps):
 * unknown properties stripped, checks of absent properties skipped (every check of the contract
 * but the presence checks accepts undefined), and errors that keep their target and value, from
 * which the error's `name` and the failing map entry are read.
 */
export const VALIDATOR_OPTIONS: ValidatorOptions = Object.freeze({
  whitelist: true,
  skipUndefinedProperties: true,
  forbidUnknownValues: false,
  validationError: Object.freeze({ target: true, value: true }),
});
