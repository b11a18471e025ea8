import type { ValidatorOptions } from 'class-validator';

/**
 * How every contract message is validated (`decodeMessage`, and the values of message maps):
 * checks of absent properties skipped (every check of the contract but the presence checks
 * accepts undefined), and errors that keep their target and value, from which the error's `name`
 * and the failing map entry are read. No `whitelist`: the instances validated here are built by
 * `decodeInstance` from the declared fields only, so there is nothing unknown to strip (and the
 * metadata cache then checks an object on the properties it defines only, see `metadata-cache.ts`).
 */
export const VALIDATOR_OPTIONS: ValidatorOptions = Object.freeze({
  skipUndefinedProperties: true,
  forbidUnknownValues: false,
  validationError: Object.freeze({ target: true, value: true }),
});
