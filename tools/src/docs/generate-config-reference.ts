import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIGURATION_PAGE, renderConfigurationReference } from './config-reference';

/**
 * `npm run docs:config`: writes the configuration reference (`docs/configuration.md`) from the
 * configuration schema (`Environment` in `libs/config`). Run it after changing a setting; the unit
 * spec `config-reference.spec.ts` fails while the committed page differs from what this writes.
 */
const path = join(process.cwd(), CONFIGURATION_PAGE);
writeFileSync(path, renderConfigurationReference());
process.stdout.write(`wrote ${CONFIGURATION_PAGE}\n`);
