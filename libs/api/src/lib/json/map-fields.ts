import { ValidateBy, type ValidationError } from 'class-validator';
import { isJsonObject, type JsonObject } from './json-object';

/**
 * Checks of map fields (`map<string, T>`). A map is a JSON object whose keys are data: every own
 * key is an entry, whatever its name (`constructor`, `toString`, `__proto__` included), and is
 * either accepted or refused by the field's key rules, never skipped.
 *
 * As protoc-gen-validate does for TTS, a failure at one entry names the entry: field
 * `attributes[toString]` with the rule it breaks, or `locations[home]` with the embedded message's
 * error as its cause. class-validator reports the map field itself, so the check records the
 * entry for the map value and `decodeMessage` reads it back (`mapEntryFailure`) when it builds the
 * error.
 */
export interface MapProblem {
  reason: string;
  /** The entry the problem is at; absent for the map as a whole (too many entries, not an object). */
  key?: string;
  /** The embedded message's first validation error, for message values. */
  cause?: ValidationError;
}

/** The problem the last check of a map value found (cleared when it passes). */
const problems = new WeakMap<object, MapProblem>();

/** The entry at which the last check of this map value failed, if it failed at an entry. */
export function mapEntryFailure(value: unknown): (MapProblem & { key: string }) | undefined {
  const problem = isJsonObject(value) ? problems.get(value) : undefined;
  return problem?.key === undefined ? undefined : { ...problem, key: problem.key };
}

const NOT_A_MAP = 'value must be an object';

/** A map field's check: `problem` finds the first problem of a map, or none. Absent values pass. */
export function MapCheck(name: string, problem: (map: JsonObject) => MapProblem | undefined): PropertyDecorator {
  return ValidateBy({
    name,
    validator: {
      validate: (v) => {
        if (v === undefined) return true;
        if (!isJsonObject(v)) return false;
        const found = problem(v);
        if (found) problems.set(v, found);
        else problems.delete(v);
        return found === undefined;
      },
      defaultMessage: (args) => (isJsonObject(args?.value) ? (problems.get(args.value)?.reason ?? 'invalid map') : NOT_A_MAP),
    },
  });
}

export interface MapKeyRules {
  keyPattern?: RegExp;
  maxKeyLength?: number;
}

/** The reason a key breaks its rules (lengths in runes, as protoc-gen-validate counts), or undefined. */
export function keyProblem(key: string, rules: MapKeyRules): string | undefined {
  if (rules.maxKeyLength !== undefined && [...key].length > rules.maxKeyLength) return `value length must be at most ${rules.maxKeyLength} runes`;
  if (rules.keyPattern && !rules.keyPattern.test(key)) return `value does not match regex pattern "${rules.keyPattern.source}"`;
  return undefined;
}
