/**
 * Environment variables that are not settings of the stack's processes (not in `Environment`):
 * read by the tests, the benchmarks, the soak test, the CLI and the launcher script. Listed apart
 * in the configuration reference; `config-reference.spec.ts` fails when the code reads a variable
 * that is neither a setting nor listed here (the benchmark's own knobs are listed in
 * `tools/src/bench/README.md` instead).
 */
export interface OtherVariable {
  name: string;
  /** Who reads it. */
  readBy: string;
  default: string;
  /** One line of Markdown. */
  meaning: string;
}

/** The tables of the page's last section, by who reads them. */
export const OTHER_VARIABLES: ReadonlyArray<{
  title: string;
  /** Where it is explained: link text and target (relative to `docs/`). */ see: readonly [string, string];
  variables: readonly OtherVariable[];
}> = [
  {
    title: 'Tests',
    see: ['The tests bring their own servers', 'tests-and-benchmarks.md#the-tests-bring-their-own-servers'],
    variables: [
      {
        name: 'TEST_MYSQL_URL',
        readBy: 'jest (integration, e2e)',
        default: 'unset',
        meaning: 'A running MySQL/MariaDB the tests use (e.g. `mysql://root@127.0.0.1:3306`); unset: the run starts a throwaway MariaDB of its own',
      },
      {
        name: 'TEST_NATS_URL',
        readBy: 'jest (integration, e2e)',
        default: 'unset',
        meaning: 'A running NATS with JetStream the tests use (e.g. `nats://127.0.0.1:4222`); unset: the run starts one of its own',
      },
      {
        name: 'TEST_MARIADBD',
        readBy: 'jest, `@lorawan/testing`',
        default: '`/usr/sbin/mariadbd`',
        meaning: "The MariaDB server program of the run's own servers",
      },
      {
        name: 'TEST_MARIADB_INSTALL_DB',
        readBy: 'jest, `@lorawan/testing`',
        default: '`/usr/bin/mariadb-install-db`',
        meaning: 'The program that makes a MariaDB data directory',
      },
      { name: 'TEST_NATS_SERVER', readBy: 'jest, `@lorawan/testing`', default: '`/usr/sbin/nats-server`', meaning: 'The NATS server program' },
      {
        name: 'TEST_MOSQUITTO',
        readBy: '`@lorawan/testing`',
        default: '`/usr/sbin/mosquitto`',
        meaning: "The MQTT broker the Pub/Sub tests start as a user's broker",
      },
      { name: 'TEST_MOSQUITTO_PASSWD', readBy: '`@lorawan/testing`', default: '`/usr/bin/mosquitto_passwd`', meaning: "mosquitto's password-file tool" },
      { name: 'TEST_CHROMIUM', readBy: "the console's browser test", default: '`/usr/bin/chromium`', meaning: 'The Chromium that `playwright-core` drives' },
      {
        name: 'TEST_KUBECTL',
        readBy: 'the deployment check (unit)',
        default: '`kubectl` on `PATH`',
        meaning: 'The `kubectl` (1.27 or later) that renders the kustomizations',
      },
      {
        name: 'LW_DIST_DIR',
        readBy: '`@lorawan/testing`, the CLI e2e specs',
        default: '`dist`',
        meaning: 'The built tree the test launchers start processes from',
      },
    ],
  },
  {
    title: 'Fuzzing',
    see: ['Fuzzing', 'tests-and-benchmarks.md#fuzzing'],
    variables: [
      { name: 'FUZZ_SEED', readBy: 'the fuzz suites', default: '4330', meaning: 'The seed of every generated request and datagram' },
      { name: 'FUZZ_RUNS', readBy: 'the HTTP fuzz suite', default: '12', meaning: 'Generated requests per route binding' },
      { name: 'FUZZ_DATAGRAMS', readBy: 'the UDP fuzz suite', default: '4000', meaning: 'Datagrams sent to the Gateway Server' },
      {
        name: 'FUZZ_BUDGET_MS',
        readBy: 'the HTTP fuzz suite',
        default: '75000',
        meaning: 'Time for all HTTP properties together; runs stop early when it is spent',
      },
      {
        name: 'FUZZ_UDP_BUDGET_MS',
        readBy: 'the UDP fuzz suite',
        default: 'a quarter of `FUZZ_BUDGET_MS`, at least 10000',
        meaning: 'Time for the UDP properties',
      },
      {
        name: 'FUZZ_MODES',
        readBy: 'the fuzz suites, `jest.config.js`',
        default: '`embedded`',
        meaning: "`embedded,distributed` adds a run against one process per component (with the run's MariaDB and NATS)",
      },
    ],
  },
  {
    title: 'Soak test',
    see: ['The soak test', 'tests-and-benchmarks.md#the-soak-test'],
    variables: [
      { name: 'SOAK_MINUTES', readBy: '`npm run soak`', default: '30', meaning: 'How long the soak test runs' },
      { name: 'SOAK_REGISTER_PER_S', readBy: '`npm run soak`', default: '5', meaning: 'Device registrations per second (through the four registries)' },
      { name: 'SOAK_READS_PER_S', readBy: '`npm run soak`', default: '50', meaning: 'Reads per second (Gets, a List every 25th)' },
      { name: 'SOAK_UPLINKS_PER_S', readBy: '`npm run soak`', default: '20', meaning: 'Simulated uplinks per second to a webhook' },
      { name: 'SOAK_STREAMS', readBy: '`npm run soak`', default: '5', meaning: 'Event streams on the application' },
      { name: 'SOAK_DEVICES', readBy: '`npm run soak`', default: '500', meaning: 'The steady device population (the oldest devices are deleted again)' },
    ],
  },
  {
    title: 'Benchmarks (beyond the knobs of `tools/src/bench/README.md`)',
    see: ['Benchmarks', 'tests-and-benchmarks.md#benchmarks'],
    variables: [
      {
        name: 'BENCH_IMPORT_BATCH',
        readBy: '`npm run bench`, phase `import`',
        default: "the CLI's (250)",
        meaning: "The CLI's `--batch-size` in the import phase",
      },
      {
        name: 'BENCH_IMPORT_CONCURRENCY',
        readBy: '`npm run bench`, phase `import`',
        default: "the CLI's (4)",
        meaning: "The CLI's `--concurrency` in the import phase",
      },
      { name: 'BENCH_RPC_CONCURRENCY', readBy: '`npm run bench`, phase `rpc_overhead`', default: '8', meaning: 'Calls in flight' },
      {
        name: 'BENCH_SUBJECT',
        readBy: "the bench's baseline processes",
        default: '`bench`',
        meaning: 'Set by the bench for the baseline HTTP edge and responder it starts: their NATS subject',
      },
      {
        name: 'BENCH_DATABASE_URL',
        readBy: "the bench's baseline responder",
        default: 'set by the bench',
        meaning: 'The database of the baseline responder',
      },
    ],
  },
  {
    title: 'Command line and launcher',
    see: ['Command line', 'http-api.md#command-line'],
    variables: [
      { name: 'LORAWAN_API_URL', readBy: '`npm run cli`', default: '`http://localhost:1885`', meaning: 'The gateway the CLI talks to (`--url`)' },
      {
        name: 'LORAWAN_API_KEY',
        readBy: '`npm run cli`',
        default: '`<DATA_DIR or ./data>/admin-api-key`',
        meaning: 'The API key the CLI sends (`--api-key`); without one it reads the key the embedded stack wrote',
      },
      {
        name: 'MYSQL_URL',
        readBy: '`npm run start:distributed`',
        default: '`mysql://root@127.0.0.1:3306`',
        meaning: 'The server under which the launcher makes the databases `lorawan_is|js|ns|as` (the `*_DATABASE_URL` it gives the components, unless set)',
      },
    ],
  },
];

/** Variables of the system, read but not ours to document. */
export const SYSTEM_VARIABLES: readonly string[] = ['PATH'];
