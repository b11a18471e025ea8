// Lint is architecture: the module-boundary rules below fail the build when a project imports
// something its tags do not allow (e.g. the gateway importing the Identity Server's internals).
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

export default [
  { ignores: ['**/dist', '**/node_modules', '**/tmp', '**/.nx', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          banTransitiveDependencies: false,
          depConstraints: [
            // Kinds of project.
            { sourceTag: 'type:contract', onlyDependOnLibsWithTags: ['type:util'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:contract', 'type:testing'] },
            { sourceTag: 'type:component', onlyDependOnLibsWithTags: ['type:util', 'type:contract', 'type:testing'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:util', 'type:contract'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:component', 'type:util', 'type:contract'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:util', 'type:contract', 'type:testing'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:component', 'type:util', 'type:contract', 'type:testing'] },
            // Components: each app reaches only its own component and the shared libraries.
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
            { sourceTag: 'scope:is', onlyDependOnLibsWithTags: ['scope:is', 'scope:shared'] },
            { sourceTag: 'scope:js', onlyDependOnLibsWithTags: ['scope:js', 'scope:shared'] },
            { sourceTag: 'scope:ns', onlyDependOnLibsWithTags: ['scope:ns', 'scope:shared'] },
            { sourceTag: 'scope:as', onlyDependOnLibsWithTags: ['scope:as', 'scope:shared'] },
            { sourceTag: 'scope:events', onlyDependOnLibsWithTags: ['scope:events', 'scope:shared'] },
            { sourceTag: 'scope:gs', onlyDependOnLibsWithTags: ['scope:gs', 'scope:shared'] },
            { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:shared'] },
            // The web console talks to the stack over HTTP only, like any TTS client: it imports no project.
            { sourceTag: 'scope:console', onlyDependOnLibsWithTags: [] },
            // The all-in-one entry point and the tools (migrations, benchmarks) start components.
            { sourceTag: 'scope:stack', onlyDependOnLibsWithTags: ['*'] },
            { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['*'] },
          ],
        },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through @lorawan/config; only main.ts files pass process.env in.' },
      ],
    },
  },
  {
    // The testing library (process launchers, fixtures) is for specs only; and for the tools that
    // drive a stack from outside: the benchmarks, and the CLI's simulated gateway and device.
    files: ['**/*.ts'],
    ignores: [
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/*.e2e-spec.ts',
      '**/*.conformance.ts',
      'libs/testing/**',
      'apps/e2e/**',
      'tools/src/bench/**',
      'tools/src/soak/**',
      'tools/src/cli/commands/simulate.ts',
    ],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: '@lorawan/testing', message: 'test-only library' }] }] },
  },
  {
    files: [
      'apps/*/src/main.ts',
      'tools/src/**/*.ts',
      'tools/jest/**/*.ts',
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/*.e2e-spec.ts',
      '**/*.fuzz-spec.ts',
      'apps/e2e/src/fuzz/**/*.ts',
      'libs/testing/**/*.ts',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
];
