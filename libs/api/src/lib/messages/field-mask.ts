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
  return values.flatMap((v) => v.split(',')).map((p) => p.trim()).filter((p) => p.length > 0);
}

/** A field holding a FieldMask. */
export function FieldMaskField(): PropertyDecorator {
  return (target, key) => {
    Transform(({ value }) => toFieldMask(value), { toClassOnly: true })(target, key);
    ValidateBy({
      name: 'field_mask',
      validator: {
        validate: (v) => v === undefined || v instanceof FieldMask,
        defaultMessage: () => 'value must be a field mask: {"paths":[…]} or "path1,path2"',
      },
    })(target, key);
  };
}
