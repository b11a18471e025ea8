/**
 * The Node.js flags every component process runs with, wherever it is started: the container
 * image (`deploy/Dockerfile`), `npm start` (package.json), the distributed launcher
 * (`scripts/distributed.mjs`), and the test and bench launchers (`spawnApp` of @lorawan/testing);
 * `node-flags.spec.ts` checks that each of them says the same.
 *
 * `--max-semi-space-size`: V8's young generation may grow to this many MB per semi-space (Node
 * 20's default: 16). The data plane allocates short-lived objects for every frame (the decoded
 * request, the device copy, the events, the answer); with a young generation too small for the
 * objects of the uplinks in flight, scavenges run more often and promote live objects to the old
 * generation, which the mark-compact collector then has to clean. At 500 uplinks/s the stack's CPU
 * per uplink fell by about 8 % (tools/src/bench/README.md, "Garbage collection"); the young
 * generation grows only as a process needs it, so an idle component stays small.
 */
export const COMPONENT_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];
