import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';

/**
 * `google.protobuf.FieldMask`. Accepted as `{"paths":[…]}` or as a comma-separated string (the
 * form of `?field_mask=a,b` on GET routes and a form TTS's unmarshaler also takes in bodies).
 */
export class FieldMask {
  paths!: string[];
}

export function toFieldMask(value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return Object.assign(new FieldMask(), { paths: splitPaths([value]) });
  if (Array.isArray(value) && value.every((p) => typeof p === 'string')) return Object.assign(new FieldMask(), { paths: splitPaths(value) });
  if (typeof value === 'object' && !Array.isArray(value)) {
    const paths = (value as { paths?: unknown }).paths;
    if (paths === undefined || paths === null) return Object.assign(new FieldMask(), { paths: [] });
    if (typeof paths === 'string') return Object.assign(new FieldMask(), { paths: splitPaths([paths]) });
    if (Array.isArray(paths) && paths.every((p) => typeof p === 'string')) return Object.assign(new FieldMask(), { paths: splitPaths(paths) });
  }
  return value;
}

function splitPaths(values: string[]): string[] {
  return values
    .flatMap((v) => v.split(','))
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/** Rules for a FieldMask held as data in a message (a webhook's `field_mask`), not a request's mask. */
export interface FieldMaskRules {
  /** The paths it may name. */
  allowed: ReadonlySet<string>;
  /** The message the paths are of, for the error reason. */
  of: string;
  maxPaths: number;
}

/** A path as an error reason shows it: long ones cut, so that an error never echoes a huge input. */
function shown(path: string): string {
  return JSON.stringify(path.length > 100 ? `${path.slice(0, 100)}…` : path);
}

/**
 * A field holding a FieldMask. A request's own mask is checked by its handler against the RPC's
 * allowed paths (`field_mask_paths`); a mask stored as data (`rules`) is checked here: at most
 * `maxPaths` paths, each one of `allowed`.
 */
export function FieldMaskField(rules?: FieldMaskRules): PropertyDecorator {
  return (target, key) => {
    Transform(({ value }) => toFieldMask(value), { toClassOnly: true })(target, key);
    ValidateBy({
      name: 'field_mask',
      validator: {
        validate: (v) => v === undefined || v instanceof FieldMask,
        defaultMessage: () => 'value must be a field mask: {"paths":[…]} or "path1,path2"',
      },
    })(target, key);
    if (!rules) return;
    const pathsOf = (v: unknown) => (v instanceof FieldMask ? v.paths : []);
    ValidateBy({
      name: 'field_mask_size',
      validator: {
        validate: (v) => pathsOf(v).length <= rules.maxPaths,
        defaultMessage: () => `value must contain no more than ${rules.maxPaths} path(s)`,
      },
    })(target, key);
    ValidateBy({
      name: 'field_mask_paths',
      validator: {
        validate: (v) => pathsOf(v).every((p) => rules.allowed.has(p)),
        defaultMessage: (args) => `path ${shown(pathsOf(args?.value).find((p) => !rules.allowed.has(p)) ?? '')} is not a field path of ${rules.of}`,
      },
    })(target, key);
  };
}
