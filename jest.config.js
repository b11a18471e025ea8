// Three test tiers, named by cost (see README "Tests"):
//   unit         *.spec.ts      no I/O, beside the code
//   integration  *.int-spec.ts  real MariaDB and NATS, each suite makes and drops its own database
//   e2e          *.e2e-spec.ts  the HTTP gateway with components as real processes, both run modes
const { pathsToModuleNameMapper } = require('./tools/jest/paths');
const swc = ['@swc/jest', JSON.parse(require('fs').readFileSync(__dirname + '/.swcrc', 'utf8'))];
const common = {
  rootDir: __dirname,
  transform: { '^.+\\.ts$': swc },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: pathsToModuleNameMapper(),
  testEnvironment: 'node',
  setupFiles: ['reflect-metadata'],
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools'],
};
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['**/*.spec.ts'] },
    { ...common, displayName: 'integration', testMatch: ['**/*.int-spec.ts'], setupFilesAfterEnv: ['<rootDir>/tools/jest/long-timeout.js'] },
    { ...common, displayName: 'e2e', testMatch: ['**/*.e2e-spec.ts'], setupFilesAfterEnv: ['<rootDir>/tools/jest/long-timeout.js'] },
  ],
};
