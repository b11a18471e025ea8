// Three test tiers, named by cost (see docs/tests-and-benchmarks.md):
//   unit         *.spec.ts      no I/O, beside the code
//   integration  *.int-spec.ts  real MariaDB and NATS, each suite makes and drops its own database
//   e2e          *.e2e-spec.ts  the HTTP gateway with components as real processes, both run modes
//   fuzz         *.fuzz-spec.ts generated HTTP requests and UDP datagrams against a running stack
//   faults       *.fault-spec.ts the distributed stack, two replicas of everything, under load and injected faults
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
// The integration and e2e tiers use TEST_MYSQL_URL / TEST_NATS_URL, or servers of the run's own (global-services.ts).
const services = {
  globalSetup: '<rootDir>/tools/jest/global-services.ts',
  globalTeardown: '<rootDir>/tools/jest/global-services-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/tools/jest/long-timeout.js'],
};
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['**/*.spec.ts'] },
    { ...common, ...services, displayName: 'integration', testMatch: ['**/*.int-spec.ts'] },
    { ...common, ...services, displayName: 'e2e', testMatch: ['**/*.e2e-spec.ts'] },
    // Fuzzing (apps/e2e/src/fuzz): fixed seed and bounded budget here; `npm run test:fuzz` with FUZZ_* for longer runs.
    // Embedded by default (no servers); FUZZ_MODES=…distributed brings the run's MariaDB and NATS.
    {
      ...common,
      ...(/distributed/.test(process.env.FUZZ_MODES ?? '') ? services : { setupFilesAfterEnv: services.setupFilesAfterEnv }),
      displayName: 'fuzz',
      testMatch: ['**/*.fuzz-spec.ts'],
    },
    // Fault injection: starts (and kills) NATS and MariaDB servers of its own, so none of the run's.
    { ...common, setupFilesAfterEnv: services.setupFilesAfterEnv, displayName: 'faults', testMatch: ['**/*.fault-spec.ts'] },
  ],
};
