import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parseDocument } from 'yaml';

/**
 * docker-compose.yml against the Compose Specification's JSON schema (compose-spec/compose-spec,
 * `schema/compose-spec.json`), as the `dclint` package ships it (`schemas/compose.schema.json`,
 * updated from upstream by its release process). Used by deploy-files.spec.ts.
 */

let validator: ValidateFunction | undefined;

function compileSchema(): ValidateFunction {
  const file = join(dirname(require.resolve('dclint/package.json')), 'schemas', 'compose.schema.json');
  // Its "$schema" is https://json-schema.org/draft-07/schema, an address Ajv does not know for the
  // draft-07 meta-schema it implements; the schema is draft-07 all the same.
  const { $schema: _draft, ...schema } = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  // Not strict: the official schema uses union types and type-less keywords, which Ajv's strict mode only warns about.
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(schema);
}

/** The Compose file as Compose reads it: YAML with `<<` merge keys (the `x-` anchors), before interpolation. */
export function parseCompose(text: string, source: string): Record<string, unknown> {
  const doc = parseDocument(text, { merge: true });
  if (doc.errors.length) throw new Error(`${source}: ${doc.errors[0].message}`);
  return doc.toJS() as Record<string, unknown>;
}

/** What the Compose Specification's schema says against a parsed Compose file (empty when it validates). */
export function composeProblems(compose: unknown): string[] {
  validator ??= compileSchema();
  if (validator(compose)) return [];
  return (validator.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
}
