import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Environment, settingDocs } from '@lorawan/config';
import { CONFIGURATION_PAGE, renderConfigurationReference, schemaProperties, settings } from './config-reference';
import { OTHER_VARIABLES, SYSTEM_VARIABLES } from './other-variables';

const ROOT = join(__dirname, '../../..');

describe('the configuration reference (docs/configuration.md)', () => {
  it('is what `npm run docs:config` writes from the schema', () => {
    const committed = readFileSync(join(ROOT, CONFIGURATION_PAGE), 'utf8');
    // A failure here means a setting changed without the page: run `npm run docs:config` and commit the page.
    expect(committed).toBe(renderConfigurationReference());
  });

  it('documents every setting of the schema, and only those', () => {
    const properties = schemaProperties();
    expect(properties.length).toBeGreaterThan(70);
    const documented = [...settingDocs(Environment).keys()];
    expect(properties.filter((p) => !documented.includes(p))).toEqual([]); // settings without a @Setting
    expect(documented.filter((d) => !properties.includes(d))).toEqual([]); // a @Setting on a property the schema does not validate
    const page = renderConfigurationReference();
    for (const name of properties) expect(page).toContain(`| \`${name}\` |`);
  });

  it('gives every setting a description, a default and what it accepts', () => {
    for (const s of settings()) {
      expect({ name: s.name, description: s.description.trim().length > 20 }).toEqual({ name: s.name, description: true });
      expect({ name: s.name, accepts: s.accepts.length > 0 }).toEqual({ name: s.name, accepts: true });
    }
  });

  it('takes a default from @Setting only where the property has no initializer (else the initializer is the default)', () => {
    const initial = new Map<string, unknown>(Object.entries(new Environment()));
    for (const [name, doc] of settingDocs(Environment)) {
      if (doc.default !== undefined) expect({ name, initializer: initial.get(name) }).toEqual({ name, initializer: undefined });
    }
  });

  it('lists apart only variables that are no setting, each once', () => {
    const names = OTHER_VARIABLES.flatMap((t) => t.variables.map((v) => v.name));
    expect(names.filter((n) => schemaProperties().includes(n))).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
  });

  it('documents every environment variable the code reads: a setting, a variable listed apart, or a benchmark knob of its README', () => {
    const files = execFileSync('git', ['ls-files', 'apps', 'libs', 'tools', 'scripts', 'jest.config.js'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => /\.(ts|mjs|cjs|js)$/.test(f));
    // `process.env.<name>`, `env.<name>`, `env['<name>']`, and the fuzz suite's `num('<name>', …)`.
    const read = /\b(?:process\.env|env)(?:\.|\[\s*['"])([A-Z][A-Z0-9_]*)|\bnum\(\s*['"]([A-Z][A-Z0-9_]*)['"]/g;
    const names = new Set<string>();
    for (const file of files) for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(read)) names.add(m[1] ?? m[2]);
    expect(names.size).toBeGreaterThan(50);
    const benchReadme = readFileSync(join(ROOT, 'tools/src/bench/README.md'), 'utf8');
    const listed = new Set([...schemaProperties(), ...OTHER_VARIABLES.flatMap((t) => t.variables.map((v) => v.name)), ...SYSTEM_VARIABLES]);
    const undocumented = [...names].filter((n) => !listed.has(n) && !(n.startsWith('BENCH_') && benchReadme.includes(`\`${n}\``))).sort();
    expect(undocumented).toEqual([]);
  });
});
