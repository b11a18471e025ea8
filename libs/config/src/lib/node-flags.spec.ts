import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMPONENT_NODE_FLAGS } from './node-flags';

const root = join(__dirname, '../../../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('COMPONENT_NODE_FLAGS', () => {
  const flags = COMPONENT_NODE_FLAGS.join(' ');

  it('are the flags of the container image, npm start and the distributed launcher', () => {
    expect(read('deploy/Dockerfile')).toContain(`CMD exec node ${flags} dist/apps/\${APP}/src/main.js`);
    expect(JSON.parse(read('package.json')).scripts.start).toContain(`node ${flags} dist/apps/stack/src/main.js`);
    expect(read('scripts/distributed.mjs')).toContain(
      `spawn(process.execPath, [${COMPONENT_NODE_FLAGS.map((f) => `'${f}'`).join(', ')}, \`dist/apps/\${app}/src/main.js\`]`,
    );
  });

  it('are the flags the test and bench launchers start components with', () => {
    expect(read('libs/testing/src/lib/processes.ts')).toContain('[...COMPONENT_NODE_FLAGS, ...nodeFlags, join(DIST, script), ...args]');
  });
});
